import NIOCore
import NIOHTTP1
import PathwatchHTTPSinkSettings
import PathwatchSinkKit

/// Who may read the live agent (contract §8): with a bearer token or basic-auth users configured,
/// every endpoint but `/healthz` needs one of them. Runs on the event loop: the token is compared
/// there (in constant time), a remembered basic-auth success is looked up there, and anything
/// needing bcrypt is handed to `CredentialVerifier`'s threads. Failed attempts count against the
/// client's address (`FailedAttemptLimiter`).
final class HTTPAuthenticator: Sendable {
    enum Decision {
        case allowed
        case refused(HTTPReply)
        /// Basic credentials not seen before: bcrypt decides, off the event loop.
        case verify(user: String, password: [UInt8])
    }

    private let bearer: [UInt8]?
    private let verifier: CredentialVerifier?
    private let limiter = FailedAttemptLimiter()

    init(token: String?, users: BasicAuthUsers?) {
        bearer = token.map { Array("Bearer \($0)".utf8) }
        verifier = users.map(CredentialVerifier.init)
    }

    var isOpen: Bool { bearer == nil && verifier == nil }

    func decide(_ headers: HTTPHeaders, client: String) -> Decision {
        guard !isOpen else { return .allowed }
        // The address is held back before anything it sent is looked at: were a remembered login
        // served here, a guesser could try passwords against the cache (one SHA-256 each, no
        // bcrypt, no count) once anyone's login with that password was remembered.
        if let retry = limiter.blockedFor(client) { return .refused(tooMany(retry)) }
        guard let given = headers["Authorization"].first else { return .refused(challenge) }
        var basic: (user: String, password: [UInt8])?
        if let verifier, given.utf8.count >= 6, given.prefix(6).lowercased() == "basic ",
            let credentials = Self.basicCredentials(String(given.dropFirst(6)))
        {
            if verifier.isRemembered(user: credentials.0, password: credentials.1) { return .allowed }
            basic = credentials
        }
        if let bearer, given.utf8.count >= 7, given.prefix(7).lowercased() == "bearer " {
            // Compared whole, as bytes, with the scheme written as the configuration expects.
            let normalized = Array("Bearer ".utf8) + Array(given.utf8.dropFirst(7))
            return settle(ConstantTime.equal(normalized, bearer), client: client)
        }
        if let basic { return .verify(user: basic.user, password: basic.password) }
        limiter.failed(client)
        return .refused(challenge)
    }

    /// Hands a `.verify` to the worker threads; `done` runs there with whether to serve, or the
    /// refusal to send. False when the workers are saturated (answer 503). A login not verified
    /// by `deadline` is answered `late` and counts as no failure.
    func verify(
        user: String, password: [UInt8], client: String, deadline: NIODeadline,
        _ done: @escaping @Sendable (HTTPReply?) -> Void
    ) -> Bool {
        verifier?.verify(user: user, password: password, deadline: deadline) { [self] outcome in
            if outcome == .late { return done(Self.late) }
            if case .refused(let reply) = settle(outcome == .allowed, client: client) { done(reply) } else { done(nil) }
        } ?? false
    }

    private func settle(_ ok: Bool, client: String) -> Decision {
        if ok {
            limiter.succeeded(client)
            return .allowed
        }
        limiter.failed(client)
        return .refused(challenge)
    }

    /// 401 with what a browser needs to ask for a user and password (basic), and what a
    /// scripted client needs to know a token is wanted (bearer).
    var challenge: HTTPReply {
        var extra: [(String, String)] = []
        if verifier != nil { extra.append(("WWW-Authenticate", "Basic realm=\"pathwatch\", charset=\"UTF-8\"")) }
        if bearer != nil { extra.append(("WWW-Authenticate", "Bearer realm=\"pathwatch\"")) }
        let what =
            verifier != nil && bearer != nil
            ? "a user and password or a bearer token" : (verifier != nil ? "a user and password" : "a bearer token")
        return .plain(.unauthorized, "\(what) is required\n", extra: extra)
    }

    static let busy = HTTPReply.plain(
        .serviceUnavailable, "too many logins being checked; try again\n", extra: [("Retry-After", "1")])

    /// A login that waited `CredentialVerifier.deadline` for a thread to check it.
    static let late = HTTPReply.plain(
        .serviceUnavailable, "the login could not be checked in time; try again\n", extra: [("Retry-After", "1")])

    private func tooMany(_ seconds: Int) -> HTTPReply {
        .plain(
            .tooManyRequests, "too many failed logins from this address; try again later\n",
            extra: [("Retry-After", String(seconds))])
    }

    /// `user:password` from base64 (RFC 7617), UTF-8; nil when malformed.
    static func basicCredentials(_ encoded: String) -> (String, [UInt8])? {
        guard let bytes = Base64.decode(encoded.trimmingSpaces), let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        guard let user = String(validating: bytes[..<colon], as: UTF8.self) else { return nil }
        return (user, Array(bytes[(colon + 1)...]))
    }
}

extension String {
    fileprivate var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
