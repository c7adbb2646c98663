import PathwatchProbeKit

/// Whether a resolver does its job, from all its answers in one sample: what the host's path
/// verdict reads (the well-known label `pathwatch.dns`).
enum ResolverHealth: Equatable {
    /// At least one query got an answer or an authoritative "no such name".
    case ok
    /// Responses came, all with an error code (the most frequent one).
    case failing(String)
    /// No response at all (the first reason).
    case notAnswering(String)

    init(_ outcomes: [QueryOutcome], queries: [DNSQuery]) {
        var codes: [String: Int] = [:]
        var reason: String?
        for (outcome, query) in zip(outcomes, queries) {
            switch outcome {
            case .response(let response, _):
                if ResponseCode.meansWorking(response.rcode) || response.rcode == query.rcode {
                    self = .ok
                    return
                }
                codes[ResponseCode.name(response.rcode), default: 0] += 1
            case .malformed:
                codes["malformed answers", default: 0] += 1
            case .noAnswer(let why), .notSent(let why):
                if reason == nil { reason = why }
            }
        }
        if let worst = codes.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) {
            self = .failing(worst.key)
        } else {
            self = .notAnswering(reason ?? "no queries")
        }
    }

    /// The label's value: "ok", "not-answering" or "failing:SERVFAIL".
    var label: String {
        switch self {
        case .ok: "ok"
        case .failing(let code): "failing:\(code)"
        case .notAnswering: "not-answering"
        }
    }

    /// The host's resolvers together: working when any works (a stub resolver asks the next
    /// when one fails); else failing when any responded; else not answering.
    static func combined(_ each: [ResolverHealth]) -> ResolverHealth {
        if each.contains(.ok) { return .ok }
        if let failing = each.first(where: { if case .failing = $0 { true } else { false } }) { return failing }
        return each.first ?? .notAnswering("no resolvers")
    }
}

/// The check `resolvers`: the resolvers' health together, carrying the path label.
struct ResolversVerdict {
    let state: CheckState
    let message: String
    let health: ResolverHealth

    init(_ each: [(resolver: ResolverAddress, health: ResolverHealth)]) {
        health = ResolverHealth.combined(each.map(\.health))
        let working = each.filter { $0.health == .ok }
        let broken = each.filter { $0.health != .ok }.map { item -> String in
            switch item.health {
            case .ok: item.resolver.key
            case .failing(let code): "\(item.resolver.key) failing: \(code)"
            case .notAnswering(let why): "\(item.resolver.key) not answering (\(why))"
            }
        }
        let count = "\(working.count) of \(each.count) resolver\(each.count == 1 ? "" : "s") answering"
        switch health {
        case _ where each.isEmpty:
            state = .unknown
            message = "no resolvers to ask"
        case .ok where broken.isEmpty:
            state = .ok
            message = "\(count): \(working.map(\.resolver.key).joined(separator: ", "))"
        case .ok:
            state = .warning
            message = "\(count); \(broken.joined(separator: "; "))"
        case .failing(let code):
            state = .critical
            message = "DNS failing: \(code); \(broken.joined(separator: "; "))"
        case .notAnswering:
            state = .critical
            message = "DNS not answering; \(broken.joined(separator: "; "))"
        }
    }
}
