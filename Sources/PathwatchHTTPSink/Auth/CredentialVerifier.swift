import NIOCore
import PathwatchBase
import PathwatchDigest
import PathwatchHTTPSinkSettings
import Synchronization

/// Verifies basic-auth passwords against their bcrypt hashes off the event loop, on a small pool
/// of threads of its own, and remembers successes so a scraper that sends the same credentials
/// every 15 s pays bcrypt once.
///
/// Every login costs the same bcrypt work, that of the highest cost configured, whoever the user
/// is, so the time a refusal takes tells nothing of which users exist: an unknown user's password
/// is checked against a stand-in of that cost, and a user whose hash costs less is checked against
/// stand-ins as well, one per missing step (cost c is 2^c rounds: 2^c + 2^c + 2^(c+1) + … +
/// 2^(max-1) = 2^max). A stand-in is a configured hash with its cost changed: the same salt, its
/// result ignored.
final class CredentialVerifier: Sendable {
    static let threads = 2
    /// Verifications waiting at most; beyond, a request is answered 503 at once.
    static let maxPending = 64
    /// Remembered successes at most (the oldest half is forgotten when full).
    static let cacheCapacity = 256
    /// How long a login may wait for its verification. One not begun by then is skipped, so a
    /// backlog of slow hashes never grows past what the threads do in this time; the request is
    /// answered 503 (`HTTPConnectionHandler`).
    static let deadline = TimeAmount.seconds(10)

    enum Outcome: Sendable {
        case allowed
        case refused
        /// Not verified: the deadline passed before a thread was free.
        case late
    }

    private let users: [String: String]
    /// The highest cost configured, and a hash to make stand-ins of.
    let maxCost: Int
    private let template: String
    /// Each thread with its crypt_rn memory, used on that thread alone.
    private let workers: [(thread: SerialThread, scratch: Bcrypt.Scratch)]
    private let pending = Atomic<Int>(0)
    private let next = Atomic<Int>(0)
    /// bcrypt rounds run so far (2^cost per hash checked): what tests compare across users.
    private let rounds = Atomic<Int>(0)
    /// SHA-256 of user, NUL, password → the order it was added in.
    private let verified = Mutex<(entries: [[UInt8]: Int], counter: Int)>(([:], 0))

    init(users: BasicAuthUsers) {
        self.users = users.hashes
        let costliest = users.hashes.keys.sorted().max {
            Bcrypt.cost(of: users.hashes[$0]!) < Bcrypt.cost(of: users.hashes[$1]!)
        }
        template = costliest.flatMap { users.hashes[$0] } ?? ""
        maxCost = Bcrypt.cost(of: template)
        workers = (0..<Self.threads).map { (SerialThread(name: "pw-http-auth\($0)"), Bcrypt.Scratch()) }
    }

    deinit { workers.forEach { $0.thread.finish() } }

    /// The hashes a login as `user` is checked against: the user's own (nil for an unknown user)
    /// and the stand-ins that bring the work to 2^maxCost rounds.
    func plan(for user: String) -> (own: String?, standIns: [String]) {
        guard let own = users[user] else { return (nil, [Bcrypt.withCost(maxCost, template)]) }
        let cost = Bcrypt.cost(of: own)
        return (own, (cost..<maxCost).map { Bcrypt.withCost($0, template) })
    }

    /// bcrypt rounds run so far.
    var roundsRun: Int { rounds.load(ordering: .relaxed) }

    /// A success remembered: no bcrypt needed (called on the event loop; SHA-256 is cheap).
    func isRemembered(user: String, password: [UInt8]) -> Bool {
        guard let key = Self.cacheKey(user: user, password: password) else { return false }
        return verified.withLock { $0.entries[key] != nil }
    }

    /// Verifies on a worker thread; `done` runs there. Returns false (without calling `done`)
    /// when too many verifications already wait. One that no thread begins before `deadline` is
    /// not verified (`.late`).
    func verify(
        user: String, password: [UInt8], deadline: NIODeadline = .now() + CredentialVerifier.deadline,
        _ done: @escaping @Sendable (Outcome) -> Void
    ) -> Bool {
        guard pending.add(1, ordering: .relaxed).newValue <= Self.maxPending else {
            pending.subtract(1, ordering: .relaxed)
            return false
        }
        let worker = workers[next.add(1, ordering: .relaxed).newValue % workers.count]
        let (own, standIns) = plan(for: user)
        let fallback = standIns.last ?? ""
        let scratch = worker.scratch
        worker.thread.async { [self] in
            defer { pending.subtract(1, ordering: .relaxed) }
            guard NIODeadline.now() < deadline else { return done(.late) }
            // An unknown user's one stand-in is checked the way a user's own hash is.
            let matched = Bcrypt.verify(password: password, hash: own ?? fallback, scratch: scratch)
            var spent = 1 << Bcrypt.cost(of: own ?? fallback)
            for standIn in own == nil ? [] : standIns {
                _ = Bcrypt.verify(password: password, hash: standIn, scratch: scratch)
                spent += 1 << Bcrypt.cost(of: standIn)
            }
            rounds.add(spent, ordering: .relaxed)
            let ok = matched && own != nil
            if ok { remember(user: user, password: password) }
            done(ok ? .allowed : .refused)
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
