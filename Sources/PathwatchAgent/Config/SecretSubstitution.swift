import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// Replaces `${env:NAME}` and `${file:/path}` in every string of the configuration with the
/// secret it names, and records each substituted value with the redactor so it never leaves
/// the agent. Errors name the reference ("environment variable ORION_API_KEY is not set"),
/// never a value.
package struct SecretSubstitution {
    /// contract §2: a secret file over 64 KiB, or not a regular file, is refused.
    static let maxSecretFileBytes = 64 << 10
    let redactor: SecretRedactor
    /// Folder that relative `${file:…}` paths are resolved against (the config file's).
    let baseDirectory: String

    package init(redactor: SecretRedactor, baseDirectory: String) {
        self.redactor = redactor
        self.baseDirectory = baseDirectory
    }

    package func apply(to value: JSONValue, at path: JSONPath = JSONPath()) throws(JSONPathError) -> JSONValue {
        switch value {
        case .string(let s):
            return .string(try substitute(s, at: path))
        case .array(let items):
            var out: [JSONValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try apply(to: item, at: path.appending(index: i))) }
            return .array(out)
        case .object(let object):
            var out = JSONObject()
            for member in object.members {
                out[member.key] = try apply(to: member.value, at: path.appending(member.key))
            }
            return .object(out)
        default:
            return value
        }
    }

    func substitute(_ text: String, at path: JSONPath) throws(JSONPathError) -> String {
        guard Self.holdsOpening(text) else { return text }
        var out = ""
        var rest = Substring(text)
        while let start = rest.firstRange(of: "${") {
            out += rest[..<start.lowerBound]
            let after = rest[start.upperBound...]
            // Only `${scheme:…}` is Pathwatch's; any other `${…}` is a shell's parameter
            // expansion in a command (`${#X}`, `${X:-default}`, `${1}`) and is left as written.
            guard Self.isReference(after) else {
                out += "${"
                rest = after
                continue
            }
            guard let end = after.firstIndex(of: "}") else {
                throw JSONPathError(path: path, message: "unterminated \"${\"; expected ${env:NAME} or ${file:/path}")
            }
            out += try resolve(String(after[..<end]), at: path)
            rest = rest[rest.index(after: end)...]
        }
        out += rest
        return out
    }

    /// Whether `text` holds a `${`, read as bytes. Nearly no configuration string does, and
    /// `String.contains` of a String is the regex library's, which sets itself up at its first
    /// use: some 180,000 instructions at every start, for this question alone.
    static func holdsOpening(_ text: String) -> Bool {
        var afterDollar = false
        for byte in text.utf8 {
            if afterDollar && byte == UInt8(ascii: "{") { return true }
            afterDollar = byte == UInt8(ascii: "$")
        }
        return false
    }

    /// Whether the text after a `${` is meant as a substitution: a scheme of lower-case letters
    /// (or `env` and `file` in any case, refused as a typo) and a colon (`env:`, `file:`, or an
    /// unknown one such as `vault:`, refused by name), followed by something a shell's `${X:…}`
    /// cannot start with (`-`, `+`, `=`, `?`, a digit, a space: its default, alternative,
    /// assignment, error and offset forms).
    static func isReference(_ text: Substring) -> Bool {
        let scheme = text.prefix { $0.isASCII && $0.isLetter }
        guard !scheme.isEmpty, scheme.allSatisfy(\.isLowercase) || ["env", "file"].contains(scheme.lowercased())
        else { return false }
        let colon = text.dropFirst(scheme.count)
        guard colon.first == ":" else { return false }
        guard let next = colon.dropFirst().first else { return true }
        return !("-+=? ".contains(next) || next.isNumber)
    }

    func resolve(_ reference: String, at path: JSONPath) throws(JSONPathError) -> String {
        if reference.hasPrefix("env:") {
            let name = String(reference.dropFirst(4))
            guard !name.isEmpty else { throw JSONPathError(path: path, message: "${env:} needs a variable name") }
            guard let raw = getenv(name) else {
                throw JSONPathError(
                    path: path, message: "environment variable \(name) is not set (referenced as ${env:\(name)})")
            }
            let value = String(cString: raw)
            redactor.add(value)
            return value
        }
        if reference.hasPrefix("file:") {
            let file = resolvePath(String(reference.dropFirst(5)), relativeTo: baseDirectory)
            let content: String
            do {
                content = try BoundedFile.readText(file, limit: Self.maxSecretFileBytes)
            } catch {
                throw JSONPathError(
                    path: path, message: "cannot read secret file \(file) (referenced as ${file:…}): \(error)")
            }
            // Files written by editors and `echo` end with a newline that is not part of the secret.
            var value = content
            while value.hasSuffix("\n") || value.hasSuffix("\r") { value.removeLast() }
            redactor.add(value)
            return value
        }
        throw JSONPathError(
            path: path,
            message: "unknown substitution \"${\(reference.prefix(20))…}\"; expected ${env:NAME} or ${file:/path}")
    }
}
