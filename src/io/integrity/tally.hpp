#pragma once
// Internal to io/: counting the rows of one kind of problem and keeping the first, so that a
// badly damaged file still gives a short list ("/ws: 3 rows name task ids not in /tasks (3
// times; first: row 5, task 999)"). Used by the consistency and content checks.
#include <string>
#include <utility>
#include <vector>

namespace wordsens::io::detail {

class Tally {
 public:
  explicit Tally(std::string what) : what_(std::move(what)) {}
  void add(const std::string& example) {
    if (count_++ == 0) first_ = example;
  }
  void report(std::vector<std::string>& problems) const {
    if (count_ == 0) return;
    problems.push_back(
        what_ + (count_ > 1 ? " (" + std::to_string(count_) + " times; first: " + first_ + ")"
                            : " (" + first_ + ")"));
  }

 private:
  std::string what_;
  std::size_t count_ = 0;
  std::string first_;
};

}  // namespace wordsens::io::detail
