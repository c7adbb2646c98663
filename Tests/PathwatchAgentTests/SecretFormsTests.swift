import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The redactor finds a secret whatever its case and however a name rule normalised it, and a
/// metric or label name that holds one becomes a stand-in that is still a name.
@Suite struct SecretFormsTests {
    let secret = "execSecret-Zq81-LmN0pQ"

    func redactor() -> SecretRedactor {
        let redactor = SecretRedactor()
        redactor.add(secret)
        return redactor
    }

    @Test func everyCaseAndNormalisedFormIsRedacted() {
        let r = redactor()
        for form in [
            secret, secret.lowercased(), secret.uppercased(), "execsecret_zq81_lmn0pq", "EXECSECRET_ZQ81_LMN0PQ",
        ] {
            #expect(r.redact("a \(form) b") == "a [redacted] b", "\(form)")
        }
        // Pieces of a normalised form, as a name cut to its limit keeps them.
        #expect(!r.redact("m_execsecret_zq81_1a2b3c4d").contains("execsecret_zq"))
        #expect(r.redact("nothing secret here") == "nothing secret here")
    }

    @Test func aNameWithASecretBecomesAStandInThatIsStillAName() throws {
        let r = redactor()
        #expect(r.redactName("execsecret_zq81_lmn0pq_warn") == "redacted_warn")
        #expect(r.redactName("plain") == "plain")
        let report = ProbeReport.sample([
            Observation(
                key: "leak", state: .ok, message: "perfdata execSecret-Zq81-LmN0pQ=1",
                metrics: [("execsecret_zq81_lmn0pq", 1), ("execsecret_zq81_lmn0pq_2", 2), ("plain", 3)],
                labels: [("EXECSECRET_ZQ81_LMN0PQ", "v")])
        ]).redacted(by: r)
        guard case .sample(let list) = report, let o = list.first else {
            Issue.record("not a sample: \(report)")
            return
        }
        // Two names made alike by their stand-ins stay apart; a name without a secret is kept.
        #expect(o.metrics.map(\.name) == ["redacted", "redacted_2", "plain"])
        #expect(o.labels.map(\.name) == ["redacted"])
        #expect(o.message == "perfdata [redacted]=1")
    }
}
