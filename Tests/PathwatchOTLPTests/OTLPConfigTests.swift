import Testing

@testable import PathwatchAgent
@testable import PathwatchOTLP
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport

/// The `otlp` sink's configuration: defaults, every key, each bad value reported with its JSON
/// path and without repeating anything that could be a secret.
@Suite struct OTLPConfigTests {
    func settings(_ sink: String) throws -> (OTLPSinkSettings, SinkTriggers) {
        let config = try SinkConfigFixture.load(sink).config.sinks[1]
        return (try #require(config.settings as? OTLPSinkSettings), config.on)
    }

    @Test func defaults() throws {
        let (s, on) = try settings(#"{"type": "otlp", "url": "http://127.0.0.1:4318/v1/metrics"}"#)
        #expect(on == [.every])
        #expect(s.encoding == .protobuf && s.compression == .gzip && s.headers.isEmpty && s.resourceAttributes.isEmpty)
        #expect(s.maxAge == .seconds(86_400) && s.maxBytes.bytes == 64 << 20 && s.maxPointsPerSend == 2000)
        #expect(s.timeout == .seconds(30) && s.retry.initial == .seconds(1) && s.retry.max == .seconds(60))
    }

    @Test func everyKey() throws {
        let (s, _) = try settings(
            """
            {"type": "otlp", "url": "https://otlp.example/v1/metrics", "headers": {"X-Scope-OrgID": "team-a"},
             "basic_auth": {"username": "12345", "password": "glc_secret"}, "encoding": "json", "compression": "none",
             "resource_attributes": {"deployment.environment.name": "prod", "service.name": "edge-agent"},
             "max_age": "30m", "max_bytes": "8MiB", "max_points_per_send": 500, "timeout": "5s",
             "tls": {"ca_file": "/etc/hostname"}, "retry": {"initial": "250ms", "max": "10s"}}
            """)
        #expect(s.headers == ["X-Scope-OrgID: team-a", "Authorization: Basic MTIzNDU6Z2xjX3NlY3JldA=="])
        #expect(s.encoding == .json && s.compression == .none)
        #expect(
            s.resourceAttributes.map { "\($0.key)=\($0.value)" } == [
                "deployment.environment.name=prod", "service.name=edge-agent",
            ])
        #expect(s.maxAge == .seconds(1800) && s.maxBytes.bytes == 8 << 20 && s.maxPointsPerSend == 500)
        #expect(s.timeout == .seconds(5) && s.tls.caFile == "/etc/hostname")
        let (bearer, _) = try settings(#"{"type": "otlp", "url": "http://127.0.0.1/m", "bearer_token": "tok"}"#)
        #expect(bearer.headers == ["Authorization: Bearer tok"])
    }

    /// A configured attribute replaces the agent's of the same key; the rest stay.
    @Test func aConfiguredAttributeReplacesTheAgentsOwn() {
        let resource = AgentResource.attributes(
            agentName: "edge-1", configured: [OTLPAttribute("service.name", "edge-agent"), OTLPAttribute("site", "b")])
        #expect(resource.filter { $0.key == "service.name" }.map(\.value) == ["edge-agent"])
        #expect(resource.contains(OTLPAttribute("service.instance.id", "edge-1")))
        #expect(resource.contains(OTLPAttribute("site", "b")))
    }

    @Test(arguments: [
        (#""url": "ftp://x/y""#, "sinks[1].url", "http:// or https://"),
        (#""url": "http://127.0.0.1/m", "on": "change""#, "sinks[1].on", "unknown key"),
        (#""url": "http://127.0.0.1/m", "encoding": "protobuf3""#, "sinks[1].encoding", #""protobuf", "json""#),
        (#""url": "http://127.0.0.1/m", "compression": "zstd""#, "sinks[1].compression", #""gzip", "none""#),
        (#""url": "http://127.0.0.1/m", "max_points_per_send": 0"#, "sinks[1].max_points_per_send", "from 1"),
        (#""url": "http://127.0.0.1/m", "max_bytes": "1kB""#, "sinks[1].max_bytes", "64KiB"),
        (#""url": "http://127.0.0.1/m", "max_age": "10ms""#, "sinks[1].max_age", "at least 1s"),
        (
            #""url": "http://127.0.0.1/m", "headers": {"Content-Encoding": "br"}"#,
            "sinks[1].headers.Content-Encoding", "itself"
        ),
        (
            #""url": "http://127.0.0.1/m", "resource_attributes": {"site": ""}"#,
            "sinks[1].resource_attributes.site", "1 to 1024 bytes"
        ),
        (
            #""url": "http://127.0.0.1/m", "resource_attributes": {"my site": "x"}"#, "sinks[1].resource_attributes",
            "without spaces"
        ),
        (
            #""url": "http://127.0.0.1/m", "resource_attributes": {"site": 7}"#, "sinks[1].resource_attributes.site",
            "string"
        ),
        (
            #""url": "http://127.0.0.1/m", "resource_attributes": \#(Self.attributes(17))"#,
            "sinks[1].resource_attributes", "at most 16"
        ),
    ])
    func badValuesNameTheirPath(members: String, path: String, expected: String) {
        guard let error = SinkConfigFixture.refusal(#"{"type": "otlp", \#(members)}"#) else { return }
        #expect(error.location == path, "\(error)")
        #expect(error.message.contains(expected), "\(error)")
    }

    @Test func errorsNeverRepeatASecret() {
        for (members, secret) in [
            (#""url": "http://user:hunter2pass@127.0.0.1/m path""#, "hunter2pass"),
            (#""url": "http://127.0.0.1/m", "headers": {"X-Key": "topsecret\nvalue"}"#, "topsecret"),
            (#""url": "http://127.0.0.1/m", "bearer_token": "tokentoken\r\n""#, "tokentoken"),
            (
                #""url": "http://127.0.0.1/m", "resource_attributes": {"k": "\#(String(repeating: "s", count: 1100))"}"#,
                "sssss"
            ),
        ] {
            guard let error = SinkConfigFixture.refusal(#"{"type": "otlp", \#(members)}"#) else { continue }
            #expect(!error.description.contains(secret), "\(error)")
        }
    }

    static func attributes(_ count: Int) -> String {
        "{" + (1...count).map { #""a\#($0)": "v""# }.joined(separator: ", ") + "}"
    }
}
