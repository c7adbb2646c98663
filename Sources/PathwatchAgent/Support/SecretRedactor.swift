import Synchronization

/// Remembers every secret value substituted into the configuration and scrubs them from any
/// text before it is logged, printed or sent: plug-in messages, labels, error texts, log lines.
/// Plug-ins see secrets (they need them); nothing they say about them leaves the agent.
public final class SecretRedactor: Sendable {
    public static let placeholder = "[redacted]"
    private let secrets = Mutex<[String]>([])

    public init() {}

    public func add(_ secret: String) {
        // Very short values would redact ordinary words; they are still secrets, so keep them,
        // but longest first so a secret containing another is scrubbed whole.
        guard !secret.isEmpty else { return }
        secrets.withLock { list in
            if !list.contains(secret) {
                list.append(secret)
                list.sort { $0.count > $1.count }
            }
        }
    }

    public func add(contentsOf other: SecretRedactor) {
        for s in other.secrets.withLock({ $0 }) { add(s) }
    }

    public var isEmpty: Bool { secrets.withLock { $0.isEmpty } }

    public func redact(_ text: String) -> String {
        let list = secrets.withLock { $0 }
        guard !list.isEmpty else { return text }
        var out = text
        for secret in list where out.contains(secret) {
            out = out.replacing(secret, with: Self.placeholder)
        }
        return out
    }
}
