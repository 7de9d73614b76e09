#pragma once
// Which build computed which records. Records are bitwise reproducible by one build only (root
// attributes software_version, git_sha, build), so a resume by another build is refused and a
// merge of files of different builds needs --allow-mixed-builds; its output then lists every
// build with its tasks in the attribute `builds` (analysis/FORMAT.md).
#include <cstdint>
#include <string>
#include <vector>

#include "io/format/file_contents.hpp"

namespace wordsens::io {

/// The build of this binary.
[[nodiscard]] BuildId this_build();

/// "wordsens 1.0.0 (git 1a2b3c4, build -march=x86-64-v3; …; Release)".
[[nodiscard]] std::string describe(const BuildId& id);

/// The fields in which `from` and `to` differ, e.g. "git_sha 1a2b3c4 → 9f8e7d6"; empty when
/// they are the same build.
[[nodiscard]] std::vector<std::string> build_differences(const BuildId& from, const BuildId& to);

/// Every build of a file with the done tasks whose records it computed: the lines of `builds`
/// (done tasks only), then the root build with the done tasks they do not list. A file of one
/// build gives one entry (its root build, every done task; none done: an empty list).
[[nodiscard]] std::vector<BuildTasks> builds_of(const FileContents& contents);

/// Ascending task ids as ranges: "0-11,24,30-35" ("" for none).
[[nodiscard]] std::string task_ranges(const std::vector<std::uint32_t>& ascending);

namespace detail {

/// The text of the attribute `builds`: one line per build (schema.hpp, attr::kBuilds).
[[nodiscard]] std::string format_builds(const std::vector<BuildTasks>& builds);

/// The builds of an attribute `builds`; std::invalid_argument naming the line that is not one.
[[nodiscard]] std::vector<BuildTasks> parse_builds(const std::string& text);

}  // namespace detail
}  // namespace wordsens::io
