// The record schemas: names unique and well-formed, and every field of both records survives the
// MPI encoding bit for bit (the encoding is derived from the schemas, so a field missing from a
// schema would be lost on the way to rank 0 and this test would not see it set).
#include <gtest/gtest.h>

#include <cmath>

#include <cstring>
#include <regex>
#include <set>
#include <string>

#include "study/record_fields.hpp"
#include "study/task_output.hpp"

namespace wordsens {
namespace {

template <typename Record>
void expect_well_formed(const RecordSchema<Record>& schema) {
  std::set<std::string> names;
  const std::regex identifier("^[A-Za-z][A-Za-z0-9_]*$");
  for (const auto& field : schema.scalars) {
    EXPECT_TRUE(names.insert(field.name).second) << field.name;
    EXPECT_TRUE(std::regex_match(field.name, identifier)) << field.name;
    EXPECT_GT(std::strlen(field.unit), 0u) << field.name;
    EXPECT_GT(std::strlen(field.meaning), 10u) << field.name;
  }
  for (const auto& field : schema.ragged) {
    for (const auto& name :
         {field.offset_column(), field.length_column(), field.values_dataset()}) {
      EXPECT_TRUE(names.insert(name).second) << name;
    }
    EXPECT_GT(std::strlen(field.meaning), 10u) << field.name;
  }
  EXPECT_EQ(std::string(schema.scalars[0].name), "task_id");
}

TEST(RecordFields, NamesAreUniqueAndDescribed) {
  expect_well_formed(ws_schema());
  expect_well_formed(gen_schema());
}

// Sets every field of `record` to a value of its own (k-th field: k + 0.25, or k + 1), so that a
// field the encoding drops or swaps with another shows up as a difference.
template <typename Record>
void fill_distinct(const RecordSchema<Record>& schema, Record& record, int salt) {
  int k = salt;
  for (const auto& field : schema.scalars) {
    ++k;
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(record.*member)>;
          record.*member =
              std::is_floating_point_v<T> ? static_cast<T>(k + 0.25) : static_cast<T>(k);
        },
        field.member);
  }
  for (const auto& field : schema.ragged) {
    ++k;
    std::visit(
        [&](auto member) {
          using T = typename std::remove_reference_t<decltype(record.*member)>::value_type;
          record.*member = std::vector<T>(static_cast<std::size_t>(k % 5 + 1), static_cast<T>(k));
        },
        field.member);
  }
}

template <typename Record>
void expect_bitwise_equal(const RecordSchema<Record>& schema, const Record& a, const Record& b) {
  for (const auto& field : schema.scalars) {
    std::visit(
        [&](auto member) {
          EXPECT_EQ(std::memcmp(&(a.*member), &(b.*member), sizeof(a.*member)), 0) << field.name;
        },
        field.member);
  }
  for (const auto& field : schema.ragged) {
    std::visit([&](auto member) { EXPECT_EQ(a.*member, b.*member) << field.name; }, field.member);
  }
}

TEST(RecordFields, EveryFieldSurvivesTheMpiEncoding) {
  TaskOutput out;
  out.task_id = 7;
  fill_distinct(ws_schema(), out.ws, 0);
  for (int g = 0; g < 3; ++g) {
    out.gen.emplace_back();
    fill_distinct(gen_schema(), out.gen.back(), 100 * (g + 1));
  }
  const TaskOutput back = decode_task_output(encode(out));
  expect_bitwise_equal(ws_schema(), out.ws, back.ws);
  ASSERT_EQ(back.gen.size(), out.gen.size());
  for (std::size_t g = 0; g < out.gen.size(); ++g) {
    expect_bitwise_equal(gen_schema(), out.gen[g], back.gen[g]);
  }
}

TEST(RecordFields, ValidValuesFollowTheirRule) {
  const double nan = std::nan(""), inf = INFINITY;
  EXPECT_TRUE(is_valid(Valid::nonnegative, 0, 1));
  EXPECT_FALSE(is_valid(Valid::nonnegative, -1e-300, 1));
  EXPECT_FALSE(is_valid(Valid::nonnegative, nan, 1));
  EXPECT_FALSE(is_valid(Valid::nonnegative, inf, 1));
  EXPECT_TRUE(is_valid(Valid::nonnegative_or_nan, nan, 1));
  EXPECT_TRUE(is_valid(Valid::nonnegative_or_nan, inf, 1));
  EXPECT_FALSE(is_valid(Valid::nonnegative_or_nan, -2, 1));
  EXPECT_FALSE(is_valid(Valid::finite, -inf, 1));
  EXPECT_TRUE(is_valid(Valid::code_0_2, 2, 1));
  EXPECT_FALSE(is_valid(Valid::code_0_2, 253, 1));
  EXPECT_FALSE(is_valid(Valid::code_0_1, 2, 1));
  EXPECT_TRUE(is_valid(Valid::position, 5, 6));
  EXPECT_FALSE(is_valid(Valid::position, 6, 6));
  EXPECT_FALSE(is_valid(Valid::position, -1, 6));
  EXPECT_TRUE(is_valid(Valid::position_or_none, -1, 6));
  EXPECT_FALSE(is_valid(Valid::count, -5, 6));
  EXPECT_TRUE(is_valid(Valid::positive, 1e-300, 1));
  EXPECT_FALSE(is_valid(Valid::positive, 0, 1));
  EXPECT_FALSE(is_valid(Valid::positive, inf, 1));
  EXPECT_TRUE(is_valid(Valid::certified, 1e-9, 1));
  EXPECT_TRUE(is_valid(Valid::certified, 0, 1));
  EXPECT_FALSE(is_valid(Valid::certified, 1.0000001e-9, 1));
  EXPECT_FALSE(is_valid(Valid::certified, nan, 1));
}

// Every column a run fills states its valid values; the ids alone are checked elsewhere.
TEST(RecordFields, EveryValueColumnStatesItsValidValues) {
  for (const auto& field : ws_schema().scalars) {
    EXPECT_EQ(field.valid == Valid::any, std::string(field.name) == "task_id") << field.name;
  }
  for (const auto& field : gen_schema().scalars) {
    EXPECT_EQ(field.valid == Valid::any, std::string(field.name) == "task_id") << field.name;
  }
  for (const auto& field : ws_schema().ragged) EXPECT_NE(field.valid, Valid::any) << field.name;
  for (const auto& field : gen_schema().ragged) EXPECT_NE(field.valid, Valid::any) << field.name;
}

}  // namespace
}  // namespace wordsens
