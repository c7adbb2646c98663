import PathwatchProbeKit
import PathwatchProbeRules

/// What a call into a probe produced, as the check book consumes it.
package enum ProbeReport: Sendable {
    /// A full sample: every check the probe has; checks it no longer reports go unknown.
    case sample([Observation])
    /// An event: only the checks that changed.
    case event([Observation])
    /// The whole sample failed or timed out: all the probe's checks become unknown.
    case failure(String)
}

extension ProbeReport {
    /// Plug-ins see secrets; what they say goes through the redactor before anyone else sees it.
    package func redacted(by redactor: SecretRedactor) -> ProbeReport {
        guard !redactor.isEmpty else { return self }
        func clean(_ o: Observation) -> Observation {
            var o = o
            // The key too: a target named from ${env:…} becomes part of a check id.
            o.key = redactor.redact(o.key)
            o.message = redactor.redact(o.message)
            // Metric and label names as well: they reach every sink (a Prometheus name and HELP
            // line, the Nagios perfdata), so a plug-in that names a metric after a secret — in
            // any form, lower-cased and normalised as a perfdata label's metric is — must not
            // leak it. Such a name becomes a stand-in (`m_redacted`), numbered when two would
            // be one.
            // A metric's own labels and help too: a script's output is whatever it printed.
            let metricNames = distinct(o.metrics.map(\.name))
            for (i, name) in metricNames.enumerated() {
                o.metrics[i].name = name
                if !o.metrics[i].labels.isEmpty {
                    let names = distinct(o.metrics[i].labels.map(\.name))
                    o.metrics[i].labels = zip(names, o.metrics[i].labels).map { ($0, redactor.redact($1.value)) }
                }
                if let help = o.metrics[i].help { o.metrics[i].help = redactor.redact(help) }
            }
            let labelNames = distinct(o.labels.map(\.name))
            o.labels = zip(labelNames, o.labels).map { ($0, redactor.redact($1.value)) }
            return o
        }
        // Names with a secret in them, redacted; those made alike by their stand-ins kept apart
        // (`m_redacted`, `m_redacted_2`, …). Names without one stay as they are.
        func distinct(_ names: [String]) -> [String] {
            let redacted = names.map { redactor.redactName($0) }
            var seen = Set(zip(names, redacted).filter { $0 == $1 }.map(\.1))
            return zip(names, redacted).map { original, name in
                guard original != name else { return name }
                var candidate = name
                var n = 1
                while !seen.insert(candidate).inserted {
                    n += 1
                    candidate = "\(name)_\(n)"
                }
                return candidate
            }
        }
        switch self {
        case .sample(let list): return .sample(list.map(clean))
        case .event(let list): return .event(list.map(clean))
        case .failure(let message): return .failure(redactor.redact(message))
        }
    }
}
