import Foundation

/// The secrets the leak hunts plant, and the forms in which one of them must never appear: the
/// agent's own hunt (SecretLeakHuntTests) and the http sink's, with its logins and TLS keys.
public enum LeakHunt {
    /// Distinct, random, and long enough that an 8-character piece of one never occurs by chance.
    public static func secret(_ tag: String) -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return tag + String((0..<22).map { _ in alphabet.randomElement()! })
    }

    /// What must never appear for `secret`: the value, every 8-character piece of it, its base64
    /// and URL-encoded forms.
    public static func forms(of secret: String) -> [String] {
        let chars = Array(secret)
        var out = [secret, Data(secret.utf8).base64EncodedString()]
        out.append(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret)
        if chars.count > 8 { for i in 0...(chars.count - 8) { out.append(String(chars[i..<(i + 8)])) } }
        return out
    }
}
