import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Opens the ICMP socket a target's `socket` setting asks for, and says in words an operator
/// can act on why none could be opened.
enum SocketOpening {
    static let groupRangePath = "/proc/sys/net/ipv4/ping_group_range"

    /// Why no socket could be opened, for the check's message.
    struct Refusal: Error { var message: String }

    static func open(_ choice: SocketChoice, v6: Bool) -> Result<ICMPSocket, Refusal> {
        let kinds: [ICMPSocket.Kind] =
            switch choice {
            case .auto: [.dgram, .raw]
            case .dgram: [.dgram]
            case .raw: [.raw]
            }
        var failures: [String] = []
        for kind in kinds {
            do {
                return .success(try ICMPSocket(kind: kind, v6: v6))
            } catch {
                failures.append(explain(error))
            }
        }
        return .failure(Refusal(message: "cannot open an ICMP socket: " + failures.joined(separator: "; ")))
    }

    static func explain(_ error: ICMPSocket.OpenError) -> String {
        let text = systemErrorText(error.code).lowercased()
        switch error.kind {
        case .dgram:
            let range = groupRange().map { "\"\($0)\"" } ?? "unreadable"
            return
                "unprivileged (dgram): \(text) (net.ipv4.ping_group_range is \(range), the agent's group is \(getegid()))"
        case .raw:
            return "raw: \(text) (needs root or CAP_NET_RAW)"
        }
    }

    /// The sysctl's two numbers as one line ("0 2147483647"); nil when unreadable.
    static func groupRange() -> String? {
        var bytes: [UInt8] = []
        guard (try? KernelFile.readAll(groupRangePath, into: &bytes)) != nil else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
