import Glibc
import PathwatchSinks
import Testing

@testable import PathwatchAgent
@testable import PathwatchRemoteWrite
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport

/// The `remote_write` sink's configuration: defaults, every key, each bad value reported with
/// its JSON path and without repeating anything that could be a secret; and the series and
/// bytes it sends, read back by an independent decoder.
@Suite struct RemoteWriteConfigTests {
    func load(_ sink: String) throws(ConfigError) -> LoadedConfig { try SinkConfigFixture.load(sink) }

    func settings(_ sink: String) throws -> (RemoteWriteSinkSettings, SinkTriggers) {
        let config = try load(sink).config.sinks[1]
        let settings = try #require(config.settings as? RemoteWriteSinkSettings)
        return (settings, config.on)
    }

    @Test func defaults() throws {
        let (s, on) = try settings(#"{"type": "remote_write", "url": "http://127.0.0.1:9090/api/v1/write"}"#)
        #expect(on == [.every])
        #expect(s.headers.isEmpty && s.externalLabels.isEmpty)
        #expect(s.maxAge == .seconds(86_400) && s.maxBytes.bytes == 64 << 20 && s.maxSamplesPerSend == 2000)
        #expect(s.timeout == .seconds(30) && s.retry.initial == .seconds(1) && s.retry.max == .seconds(60))
        #expect(s.tls == HTTPTLSDefaults.none)
    }

    @Test func everyKey() throws {
        let (s, _) = try settings(
            """
            {"type": "remote_write", "url": "https://mimir.example/api/v1/push", "headers": {"X-Scope-OrgID": "team-a"},
             "basic_auth": {"username": "12345", "password": "glc_secret"}, "external_labels": {"site": "kiosk-7", "env": "prod"},
             "max_age": "30m", "max_bytes": "8MiB", "max_samples_per_send": 500, "timeout": "5s",
             "tls": {"ca_file": "/etc/hostname"}, "retry": {"initial": "250ms", "max": "10s"}}
            """)
        #expect(s.headers == ["X-Scope-OrgID: team-a", "Authorization: Basic MTIzNDU6Z2xjX3NlY3JldA=="])
        #expect(s.externalLabels.map { "\($0.0)=\($0.1)" } == ["env=prod", "site=kiosk-7"])
        #expect(s.maxAge == .seconds(1800) && s.maxBytes.bytes == 8 << 20 && s.maxSamplesPerSend == 500)
        #expect(s.timeout == .seconds(5) && s.tls.caFile == "/etc/hostname")
        #expect(s.retry.initial == .milliseconds(250) && s.retry.max == .seconds(10))
        let (bearer, _) = try settings(#"{"type": "remote_write", "url": "http://127.0.0.1/w", "bearer_token": "tok"}"#)
        #expect(bearer.headers == ["Authorization: Bearer tok"])
    }

    @Test(arguments: [
        (#""url": "ftp://x/y""#, "sinks[1].url", "http:// or https://"),
        (#""url": "http://host:99999/""#, "sinks[1].url", "port"),
        (#""url": "http://127.0.0.1/w", "on": "change""#, "sinks[1].on", "unknown key"),
        (#""url": "http://127.0.0.1/w", "max_age": "2""#, "sinks[1].max_age", "unit"),
        (#""url": "http://127.0.0.1/w", "max_age": "10ms""#, "sinks[1].max_age", "at least 1s"),
        (#""url": "http://127.0.0.1/w", "max_bytes": "1kB""#, "sinks[1].max_bytes", "64KiB"),
        (#""url": "http://127.0.0.1/w", "max_samples_per_send": 0"#, "sinks[1].max_samples_per_send", "from 1"),
        (#""url": "http://127.0.0.1/w", "timeout": "soon""#, "sinks[1].timeout", "not a duration"),
        (
            #""url": "http://127.0.0.1/w", "retry": {"initial": "5s", "max": "1s"}"#, "sinks[1].retry.max",
            "retry.initial"
        ),
        (#""url": "http://127.0.0.1/w", "retry": {"tries": 3}"#, "sinks[1].retry.tries", "unknown key"),
        (
            #""url": "http://127.0.0.1/w", "headers": {"Content-Encoding": "gzip"}"#,
            "sinks[1].headers.Content-Encoding", "itself"
        ),
        (
            #""url": "http://127.0.0.1/w", "headers": {"Bad Header": "v"}"#, #"sinks[1].headers["Bad Header"]"#,
            "header name"
        ),
        (
            #""url": "http://127.0.0.1/w", "bearer_token": "a", "headers": {"Authorization": "b"}"#,
            "sinks[1].headers.Authorization", "already"
        ),
        (
            #""url": "http://127.0.0.1/w", "bearer_token": "a", "basic_auth": {"username": "u", "password": "p"}"#,
            "sinks[1].basic_auth", "not both"
        ),
        (#""url": "http://127.0.0.1/w", "basic_auth": {"username": "u"}"#, "sinks[1].basic_auth.password", "missing"),
        (
            #""url": "http://127.0.0.1/w", "external_labels": {"9site": "x"}"#, "sinks[1].external_labels.9site",
            "label name"
        ),
        (
            #""url": "http://127.0.0.1/w", "external_labels": {"__name__": "x"}"#, "sinks[1].external_labels.__name__",
            "label name"
        ),
        (
            #""url": "http://127.0.0.1/w", "external_labels": {"site": ""}"#, "sinks[1].external_labels.site",
            "non-empty"
        ),
        (
            #""url": "http://127.0.0.1/w", "tls": {"ca_file": "/nonexistent/ca.pem"}"#, "sinks[1].tls.ca_file",
            "cannot read"
        ),
    ])
    func badValuesNameTheirPath(members: String, path: String, expected: String) {
        guard let error = SinkConfigFixture.refusal(#"{"type": "remote_write", \#(members)}"#) else { return }
        #expect(error.location == path, "\(error)")
        #expect(error.message.contains(expected), "\(error)")
    }

    @Test func errorsNeverRepeatASecretOrTheURL() {
        for (members, secret) in [
            (#""url": "http://user:hunter2pass@127.0.0.1/w path""#, "hunter2pass"),
            (#""url": "http://127.0.0.1/w", "headers": {"X-Key": "topsecret\nvalue"}"#, "topsecret"),
            (#""url": "http://127.0.0.1/w", "bearer_token": "tokentoken\r\n""#, "tokentoken"),
            (
                #""url": "http://127.0.0.1/w", "basic_auth": {"username": "a:b", "password": "pw-secret-1"}"#,
                "pw-secret-1"
            ),
        ] {
            guard let error = SinkConfigFixture.refusal(#"{"type": "remote_write", \#(members)}"#) else { continue }
            #expect(!error.description.contains(secret), "\(error)")
        }
    }

    /// `external_labels` as a JSON object of `count` labels `l1`, `l2`, … with `value`.
    static func labels(_ count: Int, value: String = "v") -> String {
        "{" + (1...count).map { #""l\#($0)": "\#(value)""# }.joined(separator: ", ") + "}"
    }

    /// Every series carries every external label, so they are bounded: 16 labels, names of 128
    /// bytes, values of 1,024, 4 KiB in all. Past a bound the configuration is refused with the
    /// path, whatever the size (10,000 labels, a megabyte of value), and never quotes a value.
    @Test(arguments: [
        (Self.labels(17), "sinks[1].external_labels", "at most 16 labels"),
        (#"{"\#(String(repeating: "n", count: 129))": "v"}"#, "sinks[1].external_labels", "longer than 128 bytes"),
        (
            #"{"site": "\#(String(repeating: "v", count: 1025))"}"#, "sinks[1].external_labels.site",
            "at most 1024 bytes"
        ),
        (Self.labels(5, value: String(repeating: "v", count: 1000)), "sinks[1].external_labels", "at most 4096 bytes"),
        (#"{"a-b": "v"}"#, "sinks[1].external_labels.a-b", "label name"),
    ])
    func externalLabelsAreBounded(labels: String, path: String, expected: String) {
        expectRefusal(labels: labels, path: path, expected: expected)
    }

    /// The sizes an adversary tried: refused as promptly as a small mistake.
    @Test func tenThousandLabelsOrAMegabyteValueAreRefused() {
        let started = ContinuousClock.now
        expectRefusal(labels: Self.labels(10_000), path: "sinks[1].external_labels", expected: "at most 16 labels")
        expectRefusal(
            labels: #"{"site": "\#(String(repeating: "v", count: 1 << 20))"}"#, path: "sinks[1].external_labels.site",
            expected: "at most 1024 bytes")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    func expectRefusal(
        labels: String, path: String, expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard
            let error = SinkConfigFixture.refusal(
                #"{"type": "remote_write", "url": "http://127.0.0.1/w", "external_labels": \#(labels)}"#,
                sourceLocation: sourceLocation)
        else { return }
        let shown = String(error.description.prefix(300))
        #expect(error.location == path, "\(shown)", sourceLocation: sourceLocation)
        #expect(error.message.contains(expected), "\(shown)", sourceLocation: sourceLocation)
        #expect(
            !error.description.contains("vvvvvvvv") && error.description.count < 400, "\(shown)",
            sourceLocation: sourceLocation)
    }

    @Test func externalLabelsAtTheirBoundsAreAccepted() throws {
        let (s, _) = try settings(
            #"{"type": "remote_write", "url": "http://127.0.0.1/w", "external_labels": \#(Self.labels(16))}"#)
        #expect(s.externalLabels.count == 16)
        let name = String(repeating: "n", count: 128)
        let value = String(repeating: "v", count: 1024)
        let (long, _) = try settings(
            #"{"type": "remote_write", "url": "http://127.0.0.1/w", "external_labels": {"\#(name)": "\#(value)"}}"#)
        #expect(long.externalLabels.map(\.0) == [name] && long.externalLabels.map(\.1) == [value])
    }

    @Test func anOverlongLabelValueFromASecretIsNeverRepeated() {
        let secret = String(repeating: "s3cr3t-", count: 200)
        setenv("PATHWATCH_TEST_RW_LABEL", secret, 1)
        defer { unsetenv("PATHWATCH_TEST_RW_LABEL") }
        guard
            let error = SinkConfigFixture.refusal(
                #"{"type": "remote_write", "url": "http://127.0.0.1/w", "external_labels": {"tenant": "${env:PATHWATCH_TEST_RW_LABEL}"}}"#
            )
        else { return }
        #expect(error.location == "sinks[1].external_labels.tenant", "\(error)")
        #expect(
            !error.description.contains("s3cr3t") && !error.description.contains("\(secret.utf8.count)"), "\(error)")
    }

    @Test func twoSinksOnOneURLAreRefused() {
        let sink = #"{"type": "remote_write", "url": "http://127.0.0.1/w"}"#
        do {
            _ = try ConfigLoader.load(
                text: #"{"sinks": [\#(sink), \#(sink)]}"#, file: "/etc/pw/config.json", sinks: .standard)
            Issue.record("accepted two sinks on one URL")
        } catch {
            #expect(error.message.contains("same URL"), "\(error)")
        }
    }

    /// The /metrics text read back into series, with external labels and `instance` added,
    /// empty labels left out and labels sorted; encoded, compressed and decoded independently.
    @Test func seriesAreTheExpositionsAndSurviveTheWireFormat() throws {
        let text = """
            # HELP pathwatch_check_state The check's state.
            # TYPE pathwatch_check_state gauge
            pathwatch_check_state{check="a \\"q\\" \\\\ b\\nc",probe="p",plugin="x",state="ok"} 1
            pathwatch_path_info{status="satisfied",type="ethernet",interface="",internet="unknown"} 1
            pathwatch_x_bytes 1.5e+20
            pathwatch_y_ratio -0.25
            """
        let read = ExpositionReader.series(in: Array(text.utf8))
        #expect(read.count == 4)
        #expect(read[0].labels.first { $0.name == "check" }?.value == "a \"q\" \\ b\nc")
        #expect(read[2].value == 1.5e20 && read[3].value == -0.25)
        let sorted = read.map(ReportSeries.sorted)
        #expect(sorted[1].labels.map(\.name) == ["__name__", "internet", "status", "type"])
        let body = WriteRequestEncoder.entries(of: sorted, timestamp: 1_764_115_200_123)
        let compressed = try #require(Snappy.compress(body))
        let samples = try WriteRequestReader.samples(compressed: compressed)
        #expect(samples.count == 4 && samples.allSatisfy { $0.timestamp == 1_764_115_200_123 })
        #expect(samples[0].labels["check"] == "a \"q\" \\ b\nc" && samples[0].value == 1)
        #expect(samples[2].value == 1.5e20 && samples[3].value == -0.25)
        // Records join into one request: a repeated field's entries may follow one another.
        let joined = try WriteRequestReader.samples(
            protobuf: body + WriteRequestEncoder.entries(of: sorted, timestamp: 5))
        #expect(joined.count == 8 && joined[4].timestamp == 5)
    }
}

enum HTTPTLSDefaults {
    static let none = RemoteWriteSinkSettings(url: "http://x/").tls
}
