import PathwatchProbeKit

/// One target's echoes during one sample: what was sent when, and which replies came back.
final class PingSession {
    let target: PingTarget
    let address: SocketAddress
    let socket: ICMPSocket
    /// Raw sockets see every ICMP reply on the host: ours carry this identifier and nonce.
    let identifier = UInt16.random(in: 1...UInt16.max)
    let nonce = UInt64.random(in: 1...UInt64.max)

    private(set) var sent = 0
    /// CLOCK_REALTIME nanoseconds each sequence number was sent at.
    private var sentAt: [UInt16: Int64] = [:]
    /// Round-trip times in milliseconds, by sequence number.
    private(set) var rtts: [UInt16: Double] = [:]
    private(set) var duplicates = 0
    /// errno of the last send that failed (ENETUNREACH…), 0 when none did.
    private(set) var sendError: Int32 = 0
    /// CLOCK_MONOTONIC nanoseconds: when the next echo is due, and when the last one left.
    var nextSendAt: Int64 = 0
    private(set) var lastSentAt: Int64 = 0

    init(target: PingTarget, address: SocketAddress, socket: ICMPSocket) {
        self.target = target
        self.address = address
        self.socket = socket
    }

    /// The round ended (the sample's deadline) before every echo was sent or waited for.
    private(set) var cutShort = false

    var hasMoreToSend: Bool { sent < target.count && !cutShort }

    /// Sends no more echoes this round: the sample's deadline comes before their replies could.
    func stopSending() { cutShort = true }
    var awaitsReplies: Bool { rtts.count < sent }

    func sendNext(now: Int64) {
        let sequence = UInt16(truncatingIfNeeded: sent + 1)
        let packet = EchoPacket.request(v6: socket.v6, identifier: identifier, sequence: sequence, nonce: nonce)
        sentAt[sequence] = ICMPSocket.realtimeNanoseconds()
        let error = socket.send(packet, to: address)
        if error != 0 { sendError = error }
        sent += 1
        lastSentAt = now
        nextSendAt += target.interval.nanoseconds
    }

    /// Reads every datagram waiting on the socket and keeps the replies to this session's echoes.
    func drain() {
        while let datagram = socket.receive() {
            guard
                let reply = EchoPacket.reply(
                    in: datagram.bytes, v6: socket.v6, ipHeader: socket.kind == .raw && !socket.v6),
                EchoPacket.nonce(in: reply.payload) == nonce, let sent = sentAt[reply.sequence]
            else { continue }
            // An unprivileged socket only ever sees its own replies, with the identifier the kernel
            // chose; a raw one sees everyone's, so the identifier and source must be ours.
            if socket.kind == .raw && (reply.identifier != identifier || datagram.from != address) { continue }
            guard rtts[reply.sequence] == nil else {
                duplicates += 1
                continue
            }
            rtts[reply.sequence] = Double(max(0, datagram.receivedAt - sent)) / 1e6
        }
    }
}
