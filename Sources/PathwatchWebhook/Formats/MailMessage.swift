import Glibc
import PathwatchJSON
import PathwatchSinkKit

/// `email`: a run of queued changes as one mail (RFC 5322), the text the slack format writes
/// (one line for a lone change; for a storm, the tally and the first few) as its body, its first
/// line as the subject (or `subject`, the configuration's template, of the first change):
///
///     From: pathwatch@example.org
///     To: ops@example.org
///     Subject: =?UTF-8?B?…?=          (web-01: api/orion ok → critical: HTTP 503 in 41 ms)
///     Date: Sun, 29 Nov 2026 10:00:00 +0000
///     Message-ID: <0193…@pathwatch>
///     MIME-Version: 1.0
///     Content-Type: text/plain; charset=utf-8
///     Content-Transfer-Encoding: base64
///
/// The subject is encoded (RFC 2047) and the body base64 (RFC 2045), so any UTF-8 and any
/// line length arrive whole through any server. The Message-ID is the run's `webhook-id`: a
/// retry of the same run is the same message.
struct MailMessage: BatchShape {
    let from: String
    let to: [String]
    var subject: BodyTemplate? = nil

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        // A record that reaches here passed its CRC, and the serializer wrote it: it parses.
        let changes = run.map { (try? JSONParser.parse(bytes: $0.body))?.objectValue ?? JSONObject() }
        guard !changes.isEmpty else { return ([], 0) }
        let text = SlackDigest.text(changes)
        let line = subject.map { template in
            let first = String(decoding: template.render(changes[0]), as: UTF8.self)
            return changes.count > 1 ? "\(first) (+\(changes.count - 1) more)" : first
        }
        let subject = TextCut.cut(
            String(line ?? String(text.split(separator: "\n").first ?? "")).filter { $0 != "\r" && $0 != "\n" }, to: 200
        )
        let id = QueuedPayload.requestID(for: run).filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "+" }
        let headers = [
            "From: \(from)", "To: \(to.joined(separator: ", "))", "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.date(time(nil)))", "Message-ID: <\(id)@pathwatch>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64",
        ]
        let body = Self.lines(Base64.encode(Array((text + "\n").utf8)), width: 76)
        return (Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8), changes.count)
    }

    /// An RFC 2047 encoded word of UTF-8, in words of at most 75 characters on folded lines.
    static func encodedWord(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value > 0x7E || $0.value < 0x20 }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            // 45 bytes are 60 base64 characters: with "=?UTF-8?B?" and "?=", a 72-character word.
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(Base64.encode(chunk))?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Base64.encode(chunk))?=") }
        return words.joined(separator: "\r\n ")
    }

    /// RFC 5322's date, in UTC.
    static func date(_ seconds: time_t) -> String {
        var t = seconds
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S +0000", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func lines(_ text: String, width: Int) -> String {
        var out = ""
        var line = Substring(text)
        while !line.isEmpty {
            out += line.prefix(width) + "\r\n"
            line = line.dropFirst(width)
        }
        return out
    }
}
