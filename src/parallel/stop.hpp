#pragma once
// Stop requests from signals (after ALPSCore's stop_callback): the handlers only set a flag;
// the scheduler on rank 0 decides what to do and tells the other ranks, and a worker that
// receives a signal itself forwards it to rank 0, so a signal on any rank stops the whole run
// the same way.
//   USR1           → checkpoint: hand out no more tasks, finish in-flight ones, exit 3.
//   TERM, INT      → interrupt: flush what is done, abandon in-flight tasks, exit 4.
namespace wordsens::parallel {

enum class StopRequest : int { none = 0, checkpoint = 1, interrupt = 2 };

/// Installs the USR1 / TERM / INT handlers (idempotent).
void install_stop_handlers();

/// The strongest request received so far (async-signal-safe flag read).
[[nodiscard]] StopRequest stop_requested();

/// For tests: behave as if the signal had arrived.
void request_stop(StopRequest request);

}  // namespace wordsens::parallel
