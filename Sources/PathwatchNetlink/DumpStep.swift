import CNetlink

/// What one reply of a dump means for the dump: a reply to keep, a message to skip, or its end.
enum DumpStep {
    case reply, skip, done

    /// `NLMSG_NOOP` and an `NLMSG_ERROR` acknowledgement are skipped; an `NLMSG_ERROR` with an
    /// errno, or an `NLMSG_DONE` whose payload is a negative errno (a dump that failed midway),
    /// throws; `NLMSG_DONE` ends the dump, which throws `dumpInterrupted` when any reply carried
    /// `NLM_F_DUMP_INTR`. `firstWord` is the payload's first 32 bits, when it has them.
    init(
        type: UInt16, flags: UInt16, firstWord: Int32?, request: String, interrupted: inout Bool, at offset: Int,
        payloadSize: Int
    ) throws(NetlinkError) {
        if flags & UInt16(NLM_F_DUMP_INTR) != 0 { interrupted = true }
        switch Int32(type) {
        case NLMSG_NOOP:
            self = .skip
        case NLMSG_ERROR:
            guard let code = firstWord else {
                throw .malformed("NLMSG_ERROR at offset \(offset): payload of \(payloadSize) byte(s) has no error code")
            }
            if code != 0 { throw .kernel(request: request, errno: -code) }
            self = .skip
        case NLMSG_DONE:
            if let code = firstWord, code < 0 { throw .kernel(request: request, errno: -code) }
            if interrupted { throw .dumpInterrupted(request: request) }
            self = .done
        default:
            self = .reply
        }
    }
}
