import Glibc
import PathwatchBase

/// Tells the agent when `pathwatch silence` replaced the silences file: inotify on the state
/// folder, served on a thread of its own that sleeps in poll(2) until the kernel says something
/// changed there. An idle agent pays nothing for it (a once-a-second look cost an idle agent
/// half again its CPU); the command's rename is seen at once.
final class SilenceFileWatch: Sendable {
    private let thread: SerialThread
    private let fd: Int32

    /// Watches `folder` for `name` being written or renamed into place, and calls `changed` on
    /// the watch's thread; nil when inotify cannot be had (the caller looks on a timer instead).
    init?(folder: String, name: String, changed: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        thread = SerialThread(name: "pw-silences", watchingDescriptors: true)
        let watching = thread.watch(
            fd,
            onReadable: { if Self.drain(fd, naming: name) { changed() } },
            onClosed: {})
        guard watching else {
            thread.finish()
            close(fd)
            return nil
        }
    }

    /// Stops the watch and closes the descriptor (on the watch's thread, after the last serve).
    func stop() {
        thread.unwatch()
        thread.async { [fd] in close(fd) }
        thread.finish()
    }

    /// Reads every event waiting; true when one names `name`.
    private static func drain(_ fd: Int32, naming name: String) -> Bool {
        var named = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return named }
            var at = 0
            let header = MemoryLayout<inotify_event>.size
            while at + header <= n {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: at + 12, as: UInt32.self)) }
                let nameBytes = buffer[(at + header)..<min(n, at + header + length)].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { named = true }
                at += header + length
            }
        }
    }
}
