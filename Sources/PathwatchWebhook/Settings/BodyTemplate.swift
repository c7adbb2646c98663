import PathwatchJSON
import PathwatchSinkKit

/// `template`: a body the configuration writes, for a receiver none of the formats speak, with
/// named fields filled from each change (one request per change: `TemplateBody`):
///
///     "template": "{\"text\": \"{{agent}}: {{check}} is {{to}} ({{message}})\"}"
///
/// Fields: `id`, `agent` (or `host`), `check`, `probe` (the check's id before its `/`), `from`,
/// `to` (or `state`), `message`, `at` (or `time`), `path` (the path's description),
/// `path_status`, `since` (a reminder's). Each value is escaped for `content_type`: inside a
/// JSON string (`application/json`, the default: the template must put each field inside
/// quotes), percent-encoded (`application/x-www-form-urlencoded`), or as it is (`text/plain`).
/// The template is read once, at load: an unknown field, or a JSON template that does not
/// yield valid JSON, is refused there, not at the first change.
struct BodyTemplate: Sendable, Equatable {
    enum Escaping: String, Sendable, CaseIterable {
        case json = "application/json"
        case form = "application/x-www-form-urlencoded"
        case text = "text/plain"
    }

    enum Part: Sendable, Equatable {
        case text(String)
        case field(String)
    }

    static let fields: Set<String> = [
        "id", "agent", "host", "check", "probe", "from", "to", "state", "message", "at", "time", "path", "path_status",
        "since",
    ]
    static let maxBytes = 64 * 1024

    let parts: [Part]
    let escaping: Escaping

    /// The template read, or why it cannot be (a message naming the field or the problem).
    static func parse(_ template: String, escaping: Escaping) -> Result<BodyTemplate, TemplateProblem> {
        guard !template.isEmpty, template.utf8.count <= maxBytes else {
            return .failure(TemplateProblem("expected a template of 1 to \(maxBytes) bytes"))
        }
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                return .failure(TemplateProblem("a {{ without its }}"))
            }
            let name = String(rest[open.upperBound..<close.lowerBound].filter { $0 != " " })
            guard fields.contains(name) else {
                return .failure(
                    TemplateProblem(
                        "unknown field {{\(name.prefix(32))}}: the fields are \(fields.sorted().joined(separator: ", "))"
                    ))
            }
            parts.append(.field(name))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        let body = BodyTemplate(parts: parts, escaping: escaping)
        // Filled with values that need escaping, a JSON template must still be JSON.
        if escaping == .json {
            let sample = JSONObject([
                ("id", .string("01J")), ("agent", .string("web \"01\"")), ("check", .string("api/orion")),
                ("from", .string("ok")), ("to", .string("critical")), ("message", .string("line\nwith \"quotes\" \\")),
                ("at", .string("2026-11-29T10:00:00.000Z")),
            ])
            guard (try? JSONParser.parse(bytes: body.render(sample))) != nil else {
                return .failure(
                    TemplateProblem("does not yield valid JSON once filled (each field must stand inside quotes)"))
            }
        }
        return .success(body)
    }

    func render(_ change: JSONObject) -> [UInt8] {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let name): out += escaped(Self.value(of: name, in: change))
            }
        }
        return Array(out.utf8)
    }

    static func value(of field: String, in change: JSONObject) -> String {
        switch field {
        case "host": return change["agent"]?.stringValue ?? ""
        case "state": return change["to"]?.stringValue ?? ""
        case "time": return change["at"]?.stringValue ?? ""
        case "probe": return String((change["check"]?.stringValue ?? "").prefix { $0 != "/" })
        case "path": return change["path"]?["description"]?.stringValue ?? ""
        case "path_status": return change["path"]?["status"]?.stringValue ?? ""
        default: return change[field]?.stringValue ?? ""
        }
    }

    private func escaped(_ value: String) -> String {
        switch escaping {
        case .json:
            var bytes: [UInt8] = []
            JSONSerializer.writeString(value, into: &bytes)
            // The quotes are the template's own.
            return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
        case .form: return PercentEncoding.encode(value)
        case .text: return value
        }
    }
}

/// Why a template was refused.
struct TemplateProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
