import Glibc
import PathwatchAgent
import PathwatchJSON
import PathwatchSinkKit

/// Exit statuses of the contract (contract §1) that more than one command uses.
package enum ExitStatus {
    /// A configuration error (EX_CONFIG from sysexits.h).
    package static let configError: Int32 = 78
    /// A failure that is neither a state nor a configuration error.
    package static let failure: Int32 = 1
    /// A command line that cannot be run as given (EX_USAGE, as the argument parser exits).
    package static let usage: Int32 = 64
}

/// exit(3), which flushes what was printed (inside an ArgumentParser command type, `exit` is
/// the library's).
package func exitProcess(_ status: Int32) -> Never { exit(status) }

/// How the running agent ends once its service group has: what was printed is flushed, then
/// _exit(2), without the libraries' exit handlers. A sink's delivery thread may still be inside
/// a request it gave up waiting for (its queue keeps the record on disk); OpenSSL's exit handler
/// freeing its state under that request made a clean stop abort ("double free", exit 6). Nothing
/// of the agent's own is left to an exit handler: its files are synced as they are written.
package func exitAgentProcess(_ status: Int32) -> Never {
    fflush(nil)
    _exit(status)
}

/// One line to stderr, written at once (stdout stays machine-readable).
package func printError(_ text: String) {
    let bytes = Array("pathwatch: \(TextSafety.escaped(text))\n".utf8)
    bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Reports a configuration error on stderr and exits 78; in the Nagios format, also one
/// UNKNOWN line on stdout, and exit 3 (a Nagios plug-in's UNKNOWN).
package func failConfiguration(_ error: any Error, nagios: Bool) -> Never {
    printError("configuration error: \(error)")
    if nagios {
        AgentOutput.write(NagiosFormat.unknown("configuration error: \(error)") + "\n")
        exitProcess(NagiosFormat.unknownExit)
    }
    exitProcess(ExitStatus.configError)
}
