import Glibc
import NIOSSL
import PathwatchBase
import PathwatchHTTPSinkSettings
import PathwatchSinkKit
import Synchronization

/// The server context of an http sink with `tls`, kept current with its files: once a second, on
/// a thread of its own, the files are stat'ed; when one changed (a renewal replaced it, or
/// rewrote it in place), all are read and checked again and the next handshake uses the new
/// context. Connections already open keep theirs. A change that does not load (a key not yet
/// written beside its new certificate) keeps the old context and is logged, once per change.
///
/// BoringSSL keeps every session a server context makes, up to 20,480 for two hours, and
/// swift-nio-ssl offers no setting for it: a flood of handshakes grew the agent by some 5 KiB
/// each (over 100 MiB). So the connection that takes a context's `handshakesPerContext`-th
/// handshake makes it anew from the same certificates and key (parsed already: no file is read,
/// some tens of microseconds on the event loop once in 256 connections), and the old one, with
/// its sessions, goes when its last connection does. A client whose session is lost makes a full
/// handshake. (Renewed by the once-a-second check instead, a context served a whole second of a
/// flood — some 1,500 handshakes here — and the heap's high-water mark, which glibc keeps as
/// resident memory, climbed with each burst.)
final class TLSContextWatcher: Sendable {
    static let checkNanoseconds: UInt64 = 1_000_000_000
    static let handshakesPerContext = 256

    private struct State {
        var material: TLSMaterial
        var stamps: [FileStamp?]
        /// The stamps of the last change that failed to load, so the failure is logged once.
        var failedStamps: [FileStamp?]?
        var stopped = false
    }

    private let settings: HTTPTLSSettings
    private let logger: AgentLogger
    private let state: Mutex<State>
    private let thread = SerialThread(name: "pw-http-tls")
    /// Connections given the current context since it was made.
    private let handshakes = Atomic<Int>(0)

    init(settings: HTTPTLSSettings, logger: AgentLogger) throws(TLSMaterialError) {
        self.settings = settings
        self.logger = logger
        let stamps = Self.stamps(settings)
        state = Mutex(State(material: try TLSMaterial.load(settings), stamps: stamps))
        scheduleCheck()
    }

    /// The context for a connection accepted now (called on the event loop: no file is touched).
    var context: NIOSSLContext {
        if handshakes.add(1, ordering: .relaxed).newValue >= Self.handshakesPerContext { renewSessionCacheIfFull() }
        return state.withLock { $0.material.context }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        thread.finish()
    }

    private static func stamps(_ settings: HTTPTLSSettings) -> [FileStamp?] {
        ([settings.certFile, settings.keyFile] + (settings.clientCAFile.map { [$0] } ?? [])).map(FileStamp.init(path:))
    }

    private func scheduleCheck() {
        thread.async(afterNanoseconds: Self.checkNanoseconds) { [self] in
            guard !state.withLock({ $0.stopped }) else { return }
            check()
            scheduleCheck()
        }
    }

    private func check() {
        let now = Self.stamps(settings)
        let (changed, loggedAlready) = state.withLock { ($0.stamps != now, $0.failedStamps == now) }
        guard changed else { return }
        do {
            let material = try TLSMaterial.load(settings)
            handshakes.store(0, ordering: .relaxed)
            state.withLock {
                $0.material = material
                $0.stamps = now
                $0.failedStamps = nil
            }
            logger.notice(
                "http sink: TLS files changed; new connections use the certificate with serial \(material.serial)")
        } catch {
            state.withLock { $0.failedStamps = now }
            if !loggedAlready {
                logger.error("http sink: TLS files changed but cannot be used, keeping the previous ones: \(error)")
            }
        }
    }
}

extension TLSContextWatcher {
    /// A fresh context of the same material once the current one has made its share of sessions.
    private func renewSessionCacheIfFull() {
        // One connection renews: the one whose count reaches the share resets it first.
        guard handshakes.exchange(0, ordering: .relaxed) >= Self.handshakesPerContext else { return }
        let configuration = state.withLock { $0.material.configuration }
        guard let fresh = try? NIOSSLContext(configuration: configuration) else { return }
        state.withLock { $0.material.context = fresh }
    }
}

/// What tells a file changed: device, inode (a renewal that renames a new file into place),
/// modification time and size (one rewritten in place).
struct FileStamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var size: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        size = Int(info.st_size)
    }
}
