import PathwatchJSON
import PathwatchProbeKit

/// One configured query after validation: what is asked, what answers and code are expected,
/// and the key of its checks under each resolver.
struct DNSQuery {
    /// The name as configured; part of the check key.
    let name: String
    /// The name on the wire: for PTR given an address, its reverse-lookup name.
    let queryName: String
    let type: RecordType
    /// Expected answers in the form answers are read in; nil when any answer will do.
    let expect: [String]?
    let rcode: Int
    /// `<name>`, or `<name>/<TYPE>` when the name is queried for several types.
    var key: String

    init(_ config: DNSConfig.QueryConfig, at path: JSONPath) throws(ProbeConfigError) {
        func fail(_ key: String, _ message: String) -> ProbeConfigError {
            ProbeConfigError(path: path.appending(key), message: message)
        }
        let name = config.name
        // The check key `<resolver>/<name>` must fit the host's 256 characters with any resolver.
        guard !name.isEmpty, name.utf8.count <= 190 else {
            throw fail(
                "name",
                "expected a domain name of 1 to 190 characters (the check key <resolver>/<name> has at most 256)")
        }
        if let problem = TextSafety.problem(in: name) { throw fail("name", "must not contain \(problem)") }
        guard !name.contains(" "), !name.contains("/") else {
            throw fail(
                "name", "must not contain spaces or \"/\" (it becomes part of the check id <probe>/<resolver>/<name>)")
        }
        type = config.type ?? .A
        self.name = name
        queryName = type == .PTR ? (AnswerText.reverseName(name) ?? name) : name
        if let expected = config.expect {
            var normalized: [String] = []
            for (index, answer) in expected.enumerated() {
                guard let form = AnswerText.normalized(answer, for: type) else {
                    throw ProbeConfigError(
                        path: path.appending("expect").appending(index: index),
                        message: "\"\(answer)\" cannot be an answer of type \(type.rawValue)")
                }
                normalized.append(form)
            }
            guard !normalized.isEmpty else { throw fail("expect", "expected at least one answer (or leave it out)") }
            expect = normalized
        } else {
            expect = nil
        }
        if let text = config.rcode {
            guard let code = ResponseCode.code(text) else {
                throw fail("rcode", "expected a response code name (NOERROR, NXDOMAIN, SERVFAIL, REFUSED, …)")
            }
            if code != 0, expect != nil { throw fail("expect", "answers can only be expected with rcode NOERROR") }
            rcode = code
        } else {
            rcode = 0
        }
        key = name
    }
}
