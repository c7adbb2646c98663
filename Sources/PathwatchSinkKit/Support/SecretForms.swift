/// The forms a secret takes once something makes a name of it: a command that prints it as a
/// perfdata label or a Prometheus label has it turned into a metric or label name, which every
/// output then shows. The redactor registers these forms beside the secret, so the name is
/// found however the secret was normalised on its way.
package enum SecretForms {
    /// The secret lower-cased, then each of the naming rules that can meet it: every run of
    /// characters outside [a-z0-9] one `_`, trimmed at both ends (how the exec plug-in names a
    /// perfdata label's metric); each such character a `_` of its own (Prometheus's names and
    /// label names, which the agent's exposition applies); each outside [a-z0-9_] a `_` (the
    /// metric name rule's alphabet). Forms equal to the secret or to each other are given once.
    package static func names(of secret: String) -> [String] {
        let lower = secret.lowercased()
        var forms = [lower, collapsed(lower), replaced(lower, keeping: [UInt8(ascii: "_")])]
        forms.append(replaced(lower, keeping: [UInt8(ascii: "_"), UInt8(ascii: ":")]))
        var seen: Set<String> = [secret]
        return forms.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Every run of bytes outside [a-z0-9] as one `_`, none at either end.
    private static func collapsed(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if isNameByte(byte) {
                out.append(byte)
            } else if !out.isEmpty, out.last != UInt8(ascii: "_") {
                out.append(UInt8(ascii: "_"))
            }
        }
        while out.last == UInt8(ascii: "_") { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each character outside [a-z0-9] and `keeping` as one `_` (a non-ASCII character, of
    /// however many bytes, as one).
    private static func replaced(_ text: String, keeping: Set<UInt8>) -> String {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar.isASCII, isNameByte(UInt8(scalar.value)) || keeping.contains(UInt8(scalar.value)) {
                out.append(UInt8(scalar.value))
            } else {
                out.append(UInt8(ascii: "_"))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
