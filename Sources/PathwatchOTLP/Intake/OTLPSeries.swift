import PathwatchRemoteWrite
import PathwatchSinkKit

/// The series an `otlp` sink queues of each report: its checks' metrics under OpenTelemetry's
/// names (`ReportMetrics`), each point with what names it as labels (`OTLPSeriesLabels`),
/// under the agent's resource. The series of no one probe are not sent: OTLP's receivers learn
/// the agent from the resource. Used on the intake thread only.
struct OTLPSeries: ReportSeriesSource {
    private var metrics = ReportMetrics()
    private let configured: [OTLPAttribute]
    /// The resource's labels for the agent's name they were made with (a reload may rename it).
    private var resource: (agent: String, labels: [TimeSeries.Label])?

    init(configured: [OTLPAttribute]) { self.configured = configured }

    mutating func series(of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool) -> [TimeSeries] {
        let agent = snapshot.identity.name
        let labels: [TimeSeries.Label]
        if let resource, resource.agent == agent {
            labels = resource.labels
        } else {
            labels = OTLPSeriesLabels.labels(
                ofResource: AgentResource.attributes(agentName: agent, configured: configured))
            resource = (agent, labels)
        }
        return OTLPSeriesLabels.series(of: metrics.scopes(of: snapshot, probes: probes), resource: labels)
    }
}
