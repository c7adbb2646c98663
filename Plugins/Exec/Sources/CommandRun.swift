/// What running one command came to: how it ended and what it wrote.
struct CommandRun: Sendable {
    enum Ending: Sendable, Equatable {
        /// It exited by itself with this status.
        case exited(Int32)
        /// A signal ended it that the probe did not send.
        case signaled(Int32)
        /// Its time ran out: `signal` is what ended it (SIGTERM, or SIGKILL after the grace),
        /// or `status` when it exited by itself once told to stop.
        case timedOut(after: ConfigDurationText, signal: Int32?, status: Int32?, graceUsed: Bool)
        /// The spawn failed (errno), or there was no time left to start it.
        case notStarted(String)
        /// SIGKILL did not end it before the sample's deadline (stuck in the kernel): it is
        /// reaped by a later sample.
        case unreaped(after: ConfigDurationText)
    }

    var ending: Ending
    var stdout: [UInt8] = []
    /// Bytes of stdout read past `max_output` and not kept.
    var stdoutCut = 0
    var stderr: [UInt8] = []
    var stderrCut = 0
    /// A process the command started still held its stdout or stderr when it exited.
    var outputHeldOpen = false
    /// Processes of its group still running after it exited (killed with SIGKILL).
    var leftProcesses = false
    /// It had closed both stdout and stderr and was still running when its time ran out.
    var outputClosedEarly = false
    var durationNanoseconds: Int64 = 0
}

/// A duration as the messages print it ("5s", "1.5s", "300ms").
typealias ConfigDurationText = String
