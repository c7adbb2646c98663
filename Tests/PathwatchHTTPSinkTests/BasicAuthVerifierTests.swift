import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchHTTPSink

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
                verifier.verify(user: user, password: Array(password.utf8)) { ok in
                    answer.ok = ok
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
    let done = DispatchSemaphore(value: 0)
}
