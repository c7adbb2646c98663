#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Everything that can go wrong talking rtnetlink, kept apart so callers can react differently:
/// `overrun` means "re-dump, your picture is stale"; `malformed` means the kernel (or a test)
/// handed us bytes that do not parse, and nothing from that datagram should be trusted.
package enum NetlinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed (`socket`, `bind`, `sendto`, `recvmsg`, `poll`).
    case system(call: String, errno: Int32)
    /// The kernel dropped messages because the socket's receive buffer was full (`ENOBUFS`).
    /// Incremental state built from events is stale: dump everything again.
    case overrun
    /// The kernel answered a request with `NLMSG_ERROR` (or a failed `NLMSG_DONE`).
    case kernel(request: String, errno: Int32)
    /// A dump changed under the kernel while it was being read (`NLM_F_DUMP_INTR`): retry it.
    case dumpInterrupted(request: String)
    /// The kernel did not finish answering in time.
    case timedOut(request: String)
    /// Bytes that do not form valid netlink: what was wrong, and where (byte offset).
    case malformed(String)

    package var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(errorText(code))"
        case .overrun: "netlink receive buffer overrun (ENOBUFS): the kernel dropped messages"
        case .kernel(let request, let code): "kernel refused \(request): \(errorText(code))"
        case .dumpInterrupted(let request): "\(request) dump was interrupted by a concurrent change"
        case .timedOut(let request): "\(request) got no complete answer from the kernel in time"
        case .malformed(let what): "malformed netlink data: \(what)"
        }
    }
}

private func errorText(_ code: Int32) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
