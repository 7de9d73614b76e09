#pragma once
// Stop requests from signals (after ALPSCore's stop_callback): the handlers only set a flag;
// the scheduler on rank 0 decides what to do and tells the other ranks, and a worker that
// receives a signal itself forwards it to rank 0, so a signal on any rank stops the whole run
// the same way.
//   USR1           → checkpoint: hand out no more tasks, finish in-flight ones, exit 3.
//   TERM, INT      → interrupt: flush what is done, abandon in-flight tasks, exit 4.
// Before the task loop starts (start-up: MPI, reading inputs, opening and checking the results
// file) nothing computed is in flight and those steps do not poll the flag, so TERM and INT end
// the process at once; USR1 is remembered and checkpoints the run as soon as the loop starts.
namespace wordsens::parallel {

enum class StopRequest : int { none = 0, checkpoint = 1, interrupt = 2 };

/// Start-up handlers: TERM/INT write `message` (if not null; async-signal-safe write) and
/// _exit(`exit_code`) at once; USR1 sets the checkpoint flag. Call it first thing, so that no
/// signal arrives while the default actions (termination) are still in place. Ignores SIGPIPE
/// (a closed stderr must not kill a run: `wordsens run … 2>&1 | head -1`). Then unblocks USR1,
/// TERM and INT: one that a launcher held blocked while the process loaded is delivered now.
void install_startup_handlers(int exit_code, const char* message);

/// The run is ending with `exit_code` and has already said why: TERM/INT from here on (mpirun
/// ending the other ranks once one has exited non-zero) _exit(`exit_code`) without a message,
/// so the error stays the only line on stderr.
void end_quietly_on_interrupt(int exit_code);

/// Task-loop handlers: USR1 / TERM / INT only set the flag (idempotent).
void install_stop_handlers();

/// The strongest request received so far (async-signal-safe flag read).
[[nodiscard]] StopRequest stop_requested();

/// For tests: behave as if the signal had arrived.
void request_stop(StopRequest request);

/// For tests that run several schedules in one process: forget the requests received so far.
void clear_stop_request();

}  // namespace wordsens::parallel
