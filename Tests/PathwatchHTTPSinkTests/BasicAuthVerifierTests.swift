import Foundation
import NIOCore
import NIOHTTP1
import PathwatchTestSupport
import Testing

@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings
@testable import PathwatchSinkTestSupport

/// bcrypt through libcrypt and the verifier around it, without a server: the hashes htpasswd
/// writes verify, wrong passwords and unknown users do not, and a success is remembered.
@Suite(.onItsOwnThread) struct BasicAuthVerifierTests {
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/htpasswd"), "needs htpasswd (apache2-utils)"))
    func htpasswdHashesVerifyAndOnlyWithTheirPassword() throws {
        let hash = try Htpasswd.bcryptHash("right horse")
        #expect(Bcrypt.isUsableHash(hash))
        // The same hash spelled $2b$ (what Python's bcrypt writes) verifies the same.
        let modern = "$2b$" + hash.dropFirst(4)
        let scratch = Bcrypt.Scratch()
        #expect(Bcrypt.verify(password: Array("right horse".utf8), hash: hash, scratch: scratch))
        #expect(Bcrypt.verify(password: Array("right horse".utf8), hash: modern, scratch: scratch))
        #expect(!Bcrypt.verify(password: Array("right horsf".utf8), hash: hash, scratch: scratch))
        #expect(!Bcrypt.isUsableHash("$1$abc$" + String(repeating: "x", count: 53)))
        #expect(!Bcrypt.isUsableHash(String(hash.dropLast())))

        let verifier = CredentialVerifier(users: BasicAuthUsers(["scraper": hash]))
        func verify(_ user: String, _ password: String) -> Bool {
            let answer = Answer()
            #expect(
                verifier.verify(user: user, password: Array(password.utf8)) { outcome in
                    answer.ok = outcome == .allowed
                    answer.done.signal()
                })
            answer.done.wait()
            return answer.ok
        }
        #expect(!verifier.isRemembered(user: "scraper", password: Array("right horse".utf8)))
        #expect(!verify("scraper", "wrong"))
        // An unknown user with the configured user's password: checked against that hash all the
        // same (so it takes as long), and refused.
        #expect(!verify("someone", "right horse"))
        #expect(verify("scraper", "right horse"))
        #expect(verifier.isRemembered(user: "scraper", password: Array("right horse".utf8)))
        #expect(!verifier.isRemembered(user: "someone", password: Array("right horse".utf8)))
    }

    static let htpasswd = ConditionTrait.enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/htpasswd"), "needs htpasswd (apache2-utils)")

    /// A hash of `password` at `cost`, as htpasswd writes it.
    static func hash(_ password: String, cost: Int) throws -> String {
        let result = try run(["htpasswd", "-nbBC", String(cost), "u", password])
        guard result.status == 0, let colon = result.stdout.firstIndex(of: ":") else {
            throw TestFailure("htpasswd: \(result.stderr)")
        }
        return String(result.stdout[result.stdout.index(after: colon)...]).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Waits for one verification's outcome.
    static func outcome(
        _ verifier: CredentialVerifier, _ user: String, _ password: String,
        deadline: NIODeadline = .now() + .seconds(60)
    ) -> CredentialVerifier.Outcome? {
        let answer = Answer()
        guard
            verifier.verify(
                user: user, password: Array(password.utf8), deadline: deadline,
                { outcome in
                    answer.outcome = outcome
                    answer.done.signal()
                })
        else { return nil }
        answer.done.wait()
        return answer.outcome
    }

    /// Whoever logs in, and whether the password is right, the bcrypt work is the same: that of
    /// the highest cost configured (2^cost rounds). The stand-in an unknown user is checked
    /// against has that cost, and a cheaper user's own hash is topped up with stand-ins. Counted,
    /// not timed: the rounds each login ran.
    @Test(htpasswd) func everyLoginCostsTheWorkOfTheHighestConfiguredCost() throws {
        // "alice" sorts first and costs least: once, she was the stand-in for unknown users.
        let users = BasicAuthUsers(["alice": try Self.hash("alice's", cost: 4), "zed": try Self.hash("zed's", cost: 6)])
        let verifier = CredentialVerifier(users: users)
        #expect(verifier.maxCost == 6)
        let unknown = verifier.plan(for: "mallory")
        #expect(unknown.own == nil && unknown.standIns.map(Bcrypt.cost(of:)) == [6])
        #expect(unknown.standIns.allSatisfy(Bcrypt.isUsableHash))
        let alice = verifier.plan(for: "alice")
        #expect(alice.own == users.hashes["alice"] && alice.standIns.map(Bcrypt.cost(of:)) == [4, 5])
        #expect(verifier.plan(for: "zed").standIns.isEmpty)
        for (user, password, allowed) in [
            ("mallory", "alice's", false), ("alice", "wrong", false), ("alice", "alice's", true),
            ("zed", "wrong", false), ("zed", "zed's", true), ("mallory", "zed's", false),
        ] {
            let before = verifier.roundsRun
            let outcome = Self.outcome(verifier, user, password)
            #expect(outcome == (allowed ? .allowed : .refused), "\(user)")
            #expect(verifier.roundsRun - before == 1 << 6, "\(user) with \(password): rounds")
        }
    }

    /// A login no thread began before its deadline is answered `late`, and no bcrypt runs for it:
    /// a backlog of slow hashes drains instead of growing.
    @Test(htpasswd) func aLoginNotBegunByItsDeadlineIsLateAndCostsNothing() throws {
        let verifier = CredentialVerifier(users: BasicAuthUsers(["scraper": try Self.hash("pw", cost: 4)]))
        #expect(Self.outcome(verifier, "scraper", "pw", deadline: .now() - .seconds(1)) == .late)
        #expect(verifier.roundsRun == 0)
        #expect(Self.outcome(verifier, "scraper", "pw") == .allowed)
        #expect(verifier.roundsRun == 1 << 4)
    }

    /// An address held back is answered 429 whatever it sends, a login remembered from another
    /// address included: the cache is no way around the count. Other addresses are served.
    @Test(htpasswd) func aHeldBackAddressIsRefusedEvenTheRightRememberedPassword() throws {
        let authenticator = HTTPAuthenticator(
            token: nil, users: BasicAuthUsers(["scraper": try Self.hash("right", cost: 4)]))
        func headers(_ credentials: String) -> HTTPHeaders {
            ["Authorization": "Basic " + Data(credentials.utf8).base64EncodedString()]
        }
        // The scraper logs in from its address: remembered.
        guard case .verify(let user, let password) = authenticator.decide(headers("scraper:right"), client: "192.0.2.1")
        else {
            Issue.record("a new login was not handed to bcrypt")
            return
        }
        let served = Answer()
        #expect(
            authenticator.verify(user: user, password: password, client: "192.0.2.1", deadline: .now() + .seconds(60)) {
                served.outcome = $0 == nil ? .allowed : .refused
                served.done.signal()
            })
        served.done.wait()
        #expect(served.outcome == .allowed)
        guard case .allowed = authenticator.decide(headers("scraper:right"), client: "192.0.2.1") else {
            Issue.record("the login was not remembered")
            return
        }
        // Another address fails ten times (malformed credentials count, without bcrypt).
        for _ in 0..<FailedAttemptLimiter.allowed {
            guard case .refused(let reply) = authenticator.decide(["Authorization": "Basic !!"], client: "192.0.2.66")
            else {
                Issue.record("malformed credentials were not refused")
                return
            }
            #expect(reply.status == .unauthorized)
        }
        for sent: HTTPHeaders in [headers("scraper:right"), headers("scraper:guess"), [:]] {
            guard case .refused(let reply) = authenticator.decide(sent, client: "192.0.2.66") else {
                Issue.record("a held-back address was served: \(sent)")
                continue
            }
            #expect(reply.status == .tooManyRequests)
        }
        guard case .allowed = authenticator.decide(headers("scraper:right"), client: "192.0.2.1") else {
            Issue.record("the scraper's own address was held back")
            return
        }
    }

    /// Hashes bcrypt cannot serve are refused when the configuration is read, naming the user in
    /// the path and what is wrong, never quoting the hash: costs outside 4–14 (31 would hold a
    /// thread for days, 3 never verifies) and malformed ones.
    @Test func costlyCheapAndMalformedHashesAreRefusedNamingTheUser() {
        let salt = "abcdefghijklmnopqrstuu"
        let rest = "0123456789abcdefghijklmnopqrstu"
        let shortSalt = String(salt.dropLast())
        let shortRest = String(rest.dropLast())
        let cases: [(hash: String, says: String)] = [
            ("$2b$31$" + salt + rest, "has cost 31; allowed are 4 to 14"),
            ("$2b$15$" + salt + rest, "has cost 15; allowed are 4 to 14"),
            ("$2b$03$" + salt + rest, "has cost 3; allowed are 4 to 14"),
            ("$2x$10$" + salt + rest, "does not start with $2b$, $2a$ or $2y$"),
            ("$2b$1a$" + salt + rest, "no two-digit cost"),
            ("$2b$10$" + salt + shortRest, "is not 60 characters long"),
            ("$2b$10$" + shortSalt + "!" + rest, "its salt holds characters outside"),
            ("$2b$10$" + salt + shortRest + "-", "its last 31 characters"),
        ]
        for (hash, says) in cases {
            let sink = #"{"type": "http", "listen": "127.0.0.1:8470", "basic_auth_users": {"alice": "\#(hash)"}}"#
            guard let error = SinkConfigFixture.refusal(sink) else { continue }
            let text = "\(error)"
            #expect(
                text.contains("sinks[1].basic_auth_users.alice") && text.contains("user \"alice\" ")
                    && text.contains(says), "\(text)")
            #expect(!text.contains(shortSalt), "the hash is quoted: \(text)")
        }
    }

    @Test func failedLoginsHoldAnAddressBackAndTheTableStaysBounded() {
        let limiter = FailedAttemptLimiter()
        for _ in 0..<FailedAttemptLimiter.allowed {
            #expect(limiter.blockedFor("192.0.2.1") == nil)
            limiter.failed("192.0.2.1")
        }
        #expect(limiter.blockedFor("192.0.2.1") != nil)
        #expect(limiter.blockedFor("192.0.2.2") == nil)
        for i in 0..<(FailedAttemptLimiter.capacity + 10) { limiter.failed("10.0.\(i / 256).\(i % 256)") }
        #expect(limiter.count <= FailedAttemptLimiter.capacity)
    }
}

/// A verifier's answer, written on its thread before `done` is signalled and read after.
private final class Answer: @unchecked Sendable {
    var ok = false
    var outcome: CredentialVerifier.Outcome?
    let done = DispatchSemaphore(value: 0)
}
