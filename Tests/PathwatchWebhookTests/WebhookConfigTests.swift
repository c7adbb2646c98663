import PathwatchSinks
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport
@testable import PathwatchWebhook

/// The `webhook` sink's configuration: defaults, every key, and each bad value reported with its
/// JSON path and without repeating anything that could be a secret.
@Suite struct WebhookConfigTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    func load(_ sink: String) throws(ConfigError) -> LoadedConfig { try SinkConfigFixture.load(sink) }

    func webhook(_ sink: String) throws -> (WebhookSinkSettings, SinkTriggers) {
        let config = try load(sink).config.sinks[1]
        guard let settings = config.settings as? WebhookSinkSettings else {
            throw ConfigError(file: "", location: "", message: "not a webhook")
        }
        return (settings, config.on)
    }

    @Test func defaults() throws {
        let (s, on) = try webhook(#"{"type": "webhook", "url": "http://127.0.0.1:9000/hook"}"#)
        #expect(on == [.change])
        #expect(s.format == .pathwatch)
        #expect(s.signingKey == nil)
        #expect(s.headers.isEmpty)
        #expect(s.timeout == .seconds(10))
        #expect(s.maxQueue.events == 100_000 && s.maxQueue.bytes.bytes == 64_000_000)
        #expect(s.retry.initial == .seconds(1) && s.retry.max == .seconds(300))
        #expect(s.tls == .init())
    }

    @Test func batchingDefaultsFollowTheFormatAndCanBeSet() throws {
        let plain = try webhook(#"{"type": "webhook", "url": "http://127.0.0.1:9000/hook"}"#).0
        #expect(
            plain.maxBatch == 1 && plain.minInterval.nanoseconds == 0, "one object per request, as receivers expect")
        let slack = try webhook(#"{"type": "webhook", "url": "http://127.0.0.1:9000/hook", "format": "slack"}"#).0
        #expect(slack.maxBatch == 100 && slack.minInterval == .seconds(1))
        let am = try webhook(#"{"type": "webhook", "url": "http://127.0.0.1:9000/a", "format": "alertmanager"}"#).0
        #expect(am.maxBatch == 100 && am.minInterval.nanoseconds == 0)
        let set = try webhook(
            #"{"type": "webhook", "url": "http://127.0.0.1:9000/h", "max_batch": 50, "min_interval": "250ms"}"#
        ).0
        #expect(set.maxBatch == 50 && set.minInterval == .milliseconds(250))
        let unpaced = try webhook(
            #"{"type": "webhook", "url": "http://127.0.0.1:9000/h", "format": "slack", "min_interval": "0s"}"#
        ).0
        #expect(unpaced.minInterval.nanoseconds == 0)
    }

    @Test func everyKey() throws {
        let (s, on) = try webhook(
            """
            {"type": "webhook", "url": "https://am.example:9093/api/v2/alerts", "format": "alertmanager", "on": ["change"],
             "secret": "\(Self.secret)", "headers": {"Authorization": "Bearer x", "X-Team": "infra"}, "timeout": "2500ms",
             "tls": {"ca_file": "/etc/hostname", "insecure": true}, "max_queue": {"events": 500, "bytes": "8MB"},
             "retry": {"initial": "250ms", "max": "1m"}, "resend_every": "30s", "alertname": "HostCheck"}
            """)
        #expect(on == [.change])
        #expect(s.format == .alertmanager)
        #expect(s.signingKey == Base64.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        #expect(s.headers.map(\.line) == ["Authorization: Bearer x", "X-Team: infra"])
        #expect(s.timeout == .milliseconds(2500))
        #expect(s.tls.caFile == "/etc/hostname" && s.tls.insecure)
        #expect(s.maxQueue.events == 500 && s.maxQueue.bytes.bytes == 8_000_000)
        #expect(s.retry.initial == .milliseconds(250) && s.retry.max == .seconds(60))
        #expect(s.resendEvery == .seconds(30) && s.alertName == "HostCheck")
    }

    @Test(arguments: [
        (#""url": "ftp://x/y""#, "sinks[1].url", "http:// or https://"),
        (#""url": "http://host:99999/""#, "sinks[1].url", "port"),
        (#""url": "http://127.0.0.1/h", "format": "office365""#, "sinks[1].format", "\"teams\""),
        (#""url": "http://127.0.0.1/h", "secret": "notasecretvalue""#, "sinks[1].secret", "whsec_"),
        (#""url": "http://127.0.0.1/h", "secret": "whsec_!!notbase64!!""#, "sinks[1].secret", "base64"),
        (#""url": "http://127.0.0.1/h", "secret": "whsec_c2hvcnQ=""#, "sinks[1].secret", "at least 16"),
        (
            #""url": "http://127.0.0.1/h", "headers": {"Bad Header": "v"}"#, #"sinks[1].headers["Bad Header"]"#,
            "header name"
        ),
        (#""url": "http://127.0.0.1/h", "headers": {"X-A": 5}"#, "sinks[1].headers.X-A", "expected a string"),
        (
            #""url": "http://127.0.0.1/h", "headers": {"webhook-signature": "v"}"#,
            "sinks[1].headers.webhook-signature", "itself"
        ),
        (#""url": "http://127.0.0.1/h", "headers": {"X-A": "a\nb"}"#, "sinks[1].headers.X-A", "CR, LF"),
        (#""url": "http://127.0.0.1/h", "headers": ["X-A"]"#, "sinks[1].headers", "an object"),
        (#""url": "http://127.0.0.1/h", "format": "slack", "on": "every""#, "sinks[1].on", "changes only"),
        (#""url": "http://127.0.0.1/h", "resend_every": "1m""#, "sinks[1].resend_every", "alertmanager"),
        (#""url": "http://127.0.0.1/h", "max_queue": {"events": 0}"#, "sinks[1].max_queue.events", "at least 1"),
        (#""url": "http://127.0.0.1/h", "max_queue": {"bytes": "1kB"}"#, "sinks[1].max_queue.bytes", "64KiB"),
        (
            #""url": "http://127.0.0.1/h", "retry": {"initial": "5s", "max": "1s"}"#, "sinks[1].retry.max",
            "retry.initial"
        ),
        (#""url": "http://127.0.0.1/h", "timeout": "10""#, "sinks[1].timeout", "unit"),
        (
            #""url": "http://127.0.0.1/h", "tls": {"ca_file": "/nonexistent/ca.pem"}"#, "sinks[1].tls.ca_file",
            "cannot read"
        ),
        // libcurl would open these by name at each delivery: no folder nor device, refused at once.
        (
            #""url": "http://127.0.0.1/h", "tls": {"ca_file": "/etc"}"#, "sinks[1].tls.ca_file",
            "\"/etc\": not a regular file (a folder)"
        ),
        (
            #""url": "http://127.0.0.1/h", "tls": {"client_cert": "/dev/zero"}"#, "sinks[1].tls.client_cert",
            "\"/dev/zero\": not a regular file (a character device)"
        ),
        (
            #""url": "http://127.0.0.1/h", "tls": {"client_key": "/etc/hostname"}"#, "sinks[1].tls.client_key",
            "client_cert"
        ),
        (#""url": "http://127.0.0.1/h", "retries": 3"#, "sinks[1].retries", "unknown key"),
        (
            #""url": "http://127.0.0.1/h", "max_batch": 0"#, "sinks[1].max_batch",
            "expected 1 to 10000 payloads, found 0"
        ),
        (#""url": "http://127.0.0.1/h", "max_batch": 10001"#, "sinks[1].max_batch", "expected 1 to 10000"),
        (#""url": "http://127.0.0.1/h", "max_batch": "10""#, "sinks[1].max_batch", "expected"),
        (#""url": "http://127.0.0.1/h", "max_batch": 2.5"#, "sinks[1].max_batch", "expected"),
        (#""url": "http://127.0.0.1/h", "min_interval": "2h""#, "sinks[1].min_interval", "expected 0s to 1h"),
        (#""url": "http://127.0.0.1/h", "min_interval": "soon""#, "sinks[1].min_interval", "duration"),
        (#""url": "http://127.0.0.1/h", "min_interval": 1"#, "sinks[1].min_interval", "expected"),
    ])
    func badValuesNameTheirPath(members: String, path: String, expected: String) {
        guard let error = SinkConfigFixture.refusal(#"{"type": "webhook", \#(members)}"#) else { return }
        #expect(error.location == path, "\(error)")
        #expect(error.message.contains(expected), "\(error)")
    }

    @Test func errorsNeverRepeatASecretOrTheURL() {
        for (members, secret) in [
            (#""url": "http://127.0.0.1/h", "secret": "notasecretvalue""#, "notasecretvalue"),
            (#""url": "http://127.0.0.1/h", "secret": "whsec_!!tokenish!!""#, "tokenish"),
            (#""url": "http://user:hunter2pass@127.0.0.1/h path""#, "hunter2pass"),
            (#""url": "http://127.0.0.1/h", "headers": {"X-Key": "topsecret\nvalue"}"#, "topsecret"),
        ] {
            guard let error = SinkConfigFixture.refusal(#"{"type": "webhook", \#(members)}"#) else { continue }
            #expect(!error.description.contains(secret), "\(error)")
        }
    }

    @Test func targetsAreShownWithoutCredentialsQueryOrFragment() throws {
        let t = try #require(WebhookTarget("https://user:pw@hooks.example.com:8443/a/b?token=x#frag"))
        #expect(t.display == "https://hooks.example.com:8443/a/b")
        #expect(t.host == "hooks.example.com")
        let v6 = try #require(WebhookTarget("http://[::1]:9093/api/v2/alerts"))
        #expect(v6.host == "::1" && v6.display == "http://[::1]:9093/api/v2/alerts")
        #expect(WebhookTarget("http://127.0.0.1")?.display == "http://127.0.0.1")
        for bad in ["http://", "http://host:0/", "mailto:x@y", "http://[::1/", "http://:80/"] {
            #expect(WebhookTarget(bad) == nil, "\(bad)")
        }
    }
}
