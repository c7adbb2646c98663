import Foundation
import PathwatchTestSupport

/// A service manager's side of the notify protocol: a datagram socket bound to a path, read on a
/// thread of its own, keeping every message with the time it arrived.
final class NotifyListener: @unchecked Sendable {
    struct Message {
        var at: Date
        var fields: [String: String]
        var text: String
    }

    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [Message] = []

    init(in folder: URL) throws {
        path = folder.appendingPathComponent("notify.sock").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw TestFailure("bind \(path): \(errno)") }
        Thread.detachNewThread { [self] in receive() }
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return }
            let text = String(decoding: buffer[..<n], as: UTF8.self)
            var fields: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            lock.lock()
            received.append(Message(at: Date(), fields: fields, text: text))
            lock.unlock()
        }
    }

    var messages: [Message] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Waits until a message (from index `from`) has `field`, optionally equal to `value`.
    @discardableResult
    func wait(for field: String, value: String? = nil, from: Int = 0, timeout: Double = 15) -> (
        index: Int, message: Message
    )? {
        waitUntilValue(timeout: timeout) { () -> (index: Int, message: Message)? in
            let all = messages
            guard from < all.count else { return nil }
            for i in from..<all.count
            where all[i].fields[field] != nil && (value == nil || all[i].fields[field] == value) {
                return (i, all[i])
            }
            return nil
        }
    }

    /// Arrival times of `WATCHDOG=1` pings.
    var pings: [Date] { messages.filter { $0.fields["WATCHDOG"] == "1" }.map(\.at) }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}
