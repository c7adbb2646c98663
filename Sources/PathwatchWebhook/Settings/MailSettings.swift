import PathwatchSinkKit

/// The `email` sink's own keys: `from` (an address), `to` (1 to 20 addresses), `username` and
/// `password` (AUTH; the password a secret), `starttls` (default true: `smtp://` must upgrade
/// to TLS before anything is sent; false only for a relay on the host itself), `subject` (a
/// template of the first change's fields; default: the message's first line). Addresses are
/// plain `local@domain`: no names, no angle brackets, nothing that could end a header line.
package struct MailSettings: Sendable, Equatable {
    static let maxRecipients = 20

    package var from: String
    package var to: [String]
    package var username: String?
    package var password: String?
    package var starttls = true
    var subject: BodyTemplate?

    typealias Keys = WebhookSinkSettings.CodingKeys

    init(from c: ConfigObject<Keys>) throws {
        guard let from = try c.decodeIfPresent(String.self, forKey: .from) else {
            throw DecodingError.dataCorruptedError(
                forKey: .from, in: c, debugDescription: "is missing: the \"email\" format needs the sender's address")
        }
        guard Self.isAddress(from) else {
            throw DecodingError.dataCorruptedError(
                forKey: .from, in: c, debugDescription: "expected a mail address (local@domain)")
        }
        self.from = from
        let to = try c.decodeIfPresent([String].self, forKey: .to) ?? []
        guard (1...Self.maxRecipients).contains(to.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .to, in: c, debugDescription: "expected 1 to \(Self.maxRecipients) addresses")
        }
        if let bad = to.firstIndex(where: { !Self.isAddress($0) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .to, in: c, debugDescription: "to[\(bad)]: expected a mail address (local@domain)")
        }
        self.to = to
        username = try c.decodeIfPresent(String.self, forKey: .username)
        password = try c.decodeIfPresent(String.self, forKey: .password)
        guard (username == nil) == (password == nil) else {
            throw DecodingError.dataCorruptedError(
                forKey: username == nil ? .username : .password, in: c,
                debugDescription: "give username and password together (AUTH needs both)")
        }
        starttls = try c.decodeIfPresent(Bool.self, forKey: .starttls) ?? true
        if let text = try c.decodeIfPresent(String.self, forKey: .subject) {
            switch BodyTemplate.parse(text, escaping: .text) {
            case .success(let subject) where text.utf8.count <= 200 && !text.contains("\n") && !text.contains("\r"):
                self.subject = subject
            case .success:
                throw DecodingError.dataCorruptedError(
                    forKey: .subject, in: c, debugDescription: "expected one line of at most 200 bytes")
            case .failure(let problem):
                throw DecodingError.dataCorruptedError(forKey: .subject, in: c, debugDescription: problem.message)
            }
        }
    }

    /// `local@domain`: printable ASCII without spaces, `<`, `>`, `,`, quotes or a second `@`.
    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), text.utf8.count <= 254 else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.value > 0x20 && $0.value < 0x7F && !"<>,;:\"()[]\\".unicodeScalars.contains($0)
        }
    }
}
