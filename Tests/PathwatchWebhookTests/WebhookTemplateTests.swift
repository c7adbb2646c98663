import Foundation
import PathwatchJSON
import PathwatchTestSupport
import Testing

@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport
@testable import PathwatchWebhook

/// The `template` format: a body the configuration writes, its fields escaped for its content
/// type, refused at load when it names an unknown field or would not be JSON; and end to end,
/// a change whose message has quotes and a newline arrives as valid JSON with every field.
@Suite(.onItsOwnThread) struct WebhookTemplateTests {
    let change = JSONObject([
        ("id", .string("01J")), ("agent", .string("web-01")), ("check", .string("api/orion")),
        ("from", .string("ok")), ("to", .string("critical")), ("message", .string("said \"no\"\nthen & left")),
        ("at", .string("2026-11-29T10:00:00.000Z")),
        ("path", .object(JSONObject([("status", .string("satisfied")), ("description", .string("Ethernet"))]))),
    ])

    @Test func fieldsAreEscapedForTheContentType() throws {
        let json = try BodyTemplate.parse(
            #"{"t": "{{host}} {{probe}} {{check}} {{ state }}: {{message}}", "p": "{{path}}"}"#, escaping: .json
        ).get()
        let parsed = try JSONParser.parse(bytes: json.render(change))
        #expect(parsed["t"]?.stringValue == "web-01 api api/orion critical: said \"no\"\nthen & left")
        #expect(parsed["p"]?.stringValue == "Ethernet")
        let form = try BodyTemplate.parse("check={{check}}&msg={{message}}", escaping: .form).get()
        #expect(
            String(decoding: form.render(change), as: UTF8.self)
                == "check=api%2Forion&msg=said%20%22no%22%0Athen%20%26%20left")
        let text = try BodyTemplate.parse("{{check}} is {{to}}", escaping: .text).get()
        #expect(String(decoding: text.render(change), as: UTF8.self) == "api/orion is critical")
    }

    @Test func anUnknownFieldOrATemplateThatIsNotJSONIsRefusedAtLoad() {
        for (members, expected) in [
            (#""template": "{\"t\": \"{{chek}}\"}""#, "unknown field {{chek}}"),
            (#""template": "{\"t\": {{message}}}""#, "valid JSON"),
            (#""template": "{\"t\": \"{{message\"}""#, "without its }}"),
            (#""template": "{{check}}", "content_type": "text/html""#, "\"text/plain\""),
            (#""content_type": "text/plain""#, "needs its template"),
        ] {
            let error = SinkConfigFixture.refusal(
                #"{"type": "webhook", "url": "http://127.0.0.1/h", "format": "template", \#(members)}"#)
            #expect(error?.message.contains(expected) == true, "\(members): \(String(describing: error))")
        }
    }

    @Test func aChangeArrivesAsTheTemplateSaysIt() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            #"""
            {"agent": {"name": "web-tp", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\#(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\#(receiver.url)", "format": "template",
                        "template": "{\"summary\": \"{{host}}: {{check}} {{from}} -> {{to}}\", \"detail\": \"{{message}}\", \"at\": \"{{time}}\"}"}]}
            """#, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c0""#) } != nil, "\(agent.errorOutput)")
        try "critical said \"no\" & left\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 20) { !receiver.acceptedBodies().isEmpty }, "\(agent.errorOutput.suffix(1000))")
        #expect(agent.stop() == 0)
        let body = try #require(receiver.acceptedBodies().first)
        #expect(body["summary"] as? String == "web-tp: api/c0 ok -> critical")
        #expect(body["detail"] as? String == "said \"no\" & left")
        #expect((body["at"] as? String)?.hasPrefix("20") == true)
    }
}
