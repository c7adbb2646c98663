import Logging
import PathwatchHTTPOut
import PathwatchJSON

/// Reports larger than `max_bytes`: the queue refuses them (its bound is the bytes it keeps, and
/// a report is kept whole so that it is delivered or dropped as one), and counts them as
/// dropped. How large a report is depends on the checks the plug-ins report, so it is known only
/// when they do, never when the configuration is checked. Said once when it starts, with the
/// size that would be needed, and once when reports fit again; `last_error` says it meanwhile.
/// Used from the intake thread only.
struct OversizeReports {
    let maxBytes: ByteSize
    let context: PushContext
    private var refusedInARow = 0

    init(maxBytes: ByteSize, context: PushContext) {
        self.maxBytes = maxBytes
        self.context = context
    }

    /// A report of `bytes` (`series` series) was refused.
    mutating func refused(bytes: Int, series: Int) {
        let text =
            "a report of \(ByteSize(bytes: UInt64(bytes))) (\(series) series) is larger than max_bytes (\(maxBytes)) and was dropped"
        context.health.noteError(text)
        refusedInARow += 1
        if refusedInARow == 1 {
            context.log(
                .error,
                "\(text); every report this large is dropped and counted until max_bytes is raised above its size")
        }
    }

    /// A report fitted.
    mutating func fitted() {
        if refusedInARow > 0 {
            context.log(.notice, "reports fit max_bytes again; \(refusedInARow) were dropped as larger than it")
        }
        refusedInARow = 0
    }
}
