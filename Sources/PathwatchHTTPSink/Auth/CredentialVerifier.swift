import PathwatchBase
import PathwatchDigest
import Synchronization

/// Verifies basic-auth passwords against their bcrypt hashes off the event loop, on a small pool
/// of threads of its own, and remembers successes so a scraper that sends the same credentials
/// every 15 s pays bcrypt once. An unknown user's password is checked against a configured hash
/// all the same and then refused, so the time taken does not tell which users exist.
final class CredentialVerifier: Sendable {
    static let threads = 2
    /// Verifications waiting at most; beyond, a request is answered 503 at once.
    static let maxPending = 64
    /// Remembered successes at most (the oldest half is forgotten when full).
    static let cacheCapacity = 256

    private let users: [String: String]
    private let decoyHash: String
    /// Each thread with its crypt_rn memory, used on that thread alone.
    private let workers: [(thread: SerialThread, scratch: Bcrypt.Scratch)]
    private let pending = Atomic<Int>(0)
    private let next = Atomic<Int>(0)
    /// SHA-256 of user, NUL, password → the order it was added in.
    private let verified = Mutex<(entries: [[UInt8]: Int], counter: Int)>(([:], 0))

    init(users: BasicAuthUsers) {
        self.users = users.hashes
        decoyHash = users.hashes.keys.sorted().first.flatMap { users.hashes[$0] } ?? ""
        workers = (0..<Self.threads).map { (SerialThread(name: "pw-http-auth\($0)"), Bcrypt.Scratch()) }
    }

    deinit { workers.forEach { $0.thread.finish() } }

    /// A success remembered: no bcrypt needed (called on the event loop; SHA-256 is cheap).
    func isRemembered(user: String, password: [UInt8]) -> Bool {
        guard let key = Self.cacheKey(user: user, password: password) else { return false }
        return verified.withLock { $0.entries[key] != nil }
    }

    /// Verifies on a worker thread; `done` runs there. Returns false (without calling `done`)
    /// when too many verifications already wait.
    func verify(user: String, password: [UInt8], _ done: @escaping @Sendable (Bool) -> Void) -> Bool {
        guard pending.add(1, ordering: .relaxed).newValue <= Self.maxPending else {
            pending.subtract(1, ordering: .relaxed)
            return false
        }
        let worker = workers[next.add(1, ordering: .relaxed).newValue % workers.count]
        let hash = users[user]
        let decoy = decoyHash
        let scratch = worker.scratch
        worker.thread.async { [self] in
            let matched = Bcrypt.verify(password: password, hash: hash ?? decoy, scratch: scratch)
            let ok = matched && hash != nil
            if ok { remember(user: user, password: password) }
            pending.subtract(1, ordering: .relaxed)
            done(ok)
        }
        return true
    }

    private func remember(user: String, password: [UInt8]) {
        guard let key = Self.cacheKey(user: user, password: password) else { return }
        verified.withLock { v in
            v.counter += 1
            v.entries[key] = v.counter
            if v.entries.count > Self.cacheCapacity {
                let cutoff = v.counter - Self.cacheCapacity / 2
                v.entries = v.entries.filter { $0.value > cutoff }
            }
        }
    }

    private static func cacheKey(user: String, password: [UInt8]) -> [UInt8]? {
        Digest.sha256(Array(user.utf8) + [0] + password)
    }
}
