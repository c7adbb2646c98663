import PathwatchJSON
import PathwatchProbeKit
import Testing

@testable import ReachabilityProbe

/// Targets of one probe share what they hold alike, and each still reads as its configuration says.
@Suite struct TargetSharingTests {
    static func probe(_ targets: String) throws -> [TargetSpec] {
        try ReachabilityProbe.validate(
            ProbeExport.decodeConfig(ReachabilityConfig.self, from: #"{"targets": [\#(targets)]}"#))
    }

    /// Whether two strings read the same bytes in memory (one storage), not only equal ones.
    static func sameStorage(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        let left = a.withUTF8 { UInt(bitPattern: $0.baseAddress) }
        let right = b.withUTF8 { UInt(bitPattern: $0.baseAddress) }
        return left == right
    }

    @Test func targetsWithTheSameOptionsAndKindShareOneSettings() throws {
        let targets = try Self.probe(
            #"{"name": "a", "url": "http://127.0.0.1:9/a"}, {"name": "b", "url": "http://127.0.0.1:9/b"}, "#
                + #"{"name": "c", "url": "https://127.0.0.1:9/c"}, {"name": "d", "url": "tcp://127.0.0.1:9"}, "#
                + #"{"name": "e", "url": "http://127.0.0.1:9/e", "timeout": "2s", "expect_status": [200, "3xx"]}, "#
                + #"{"name": "f", "url": "http://127.0.0.1:9/f", "timeout": "2s", "expect_status": [200, "3xx"]}, "#
                + #"{"name": "g", "url": "http://127.0.0.1:9/g", "timeout": "3s", "expect_status": [200, "3xx"]}"#)
        #expect(targets[0].settings === targets[1].settings)
        // What is valid depends on the URL's kind: each kind has settings of its own.
        #expect(targets[0].settings !== targets[2].settings)
        #expect(targets[0].settings !== targets[3].settings)
        #expect(targets[4].settings === targets[5].settings)
        #expect(targets[4].settings !== targets[6].settings)
        #expect(targets[0].timeout == TargetSpec.defaultTimeout)
        #expect(targets[0].method == .get)
        #expect(targets[3].isTCP)
        #expect(targets[5].timeout == .seconds(2))
        #expect(targets[6].timeout == .seconds(3))
        #expect(targets[6].expectStatus.description == "200, 3xx")
    }

    @Test func aTargetWithHeadersOrConditionsHasSettingsOfItsOwn() throws {
        let targets = try Self.probe(
            #"{"name": "a", "url": "http://127.0.0.1:9/a", "headers": {"X-A": "1"}}, "#
                + #"{"name": "b", "url": "http://127.0.0.1:9/b", "headers": {"X-A": "1"}}, "#
                + #"{"name": "c", "url": "http://127.0.0.1:9/c", "expect_body": "ok"}, "#
                + #"{"name": "d", "url": "http://127.0.0.1:9/d", "method": "HEAD"}"#)
        #expect(targets[0].settings !== targets[1].settings)
        #expect(targets[1].headers == ["X-A: 1"])
        #expect(targets[2].conditions.keepsBody)
        #expect(!targets[3].conditions.keepsBody)
        #expect(targets[3].method == .head)
    }

    /// A tcp:// target is checked on its own even when an http:// target before it set the same.
    @Test func sharingDoesNotSkipWhatATCPTargetRefuses() {
        do {
            _ = try Self.probe(
                #"{"name": "a", "url": "http://127.0.0.1:9/a", "method": "GET"}, "#
                    + #"{"name": "b", "url": "tcp://127.0.0.1:9", "method": "GET"}"#)
            Issue.record("a tcp:// target with a method was accepted")
        } catch let error as ProbeConfigError {
            #expect(error.path.description == "targets[1].method")
            #expect(error.message.contains("does not apply to a tcp:// target"))
        } catch {
            Issue.record("unexpected error: \(error)")
        }
    }

    @Test func endpointsOfOneServerAreOneText() throws {
        let targets = try Self.probe(
            #"{"name": "a", "url": "http://service.internal.example:8080/a"}, "#
                + #"{"name": "b", "url": "http://service.internal.example:8080/b"}, "#
                + #"{"name": "c", "url": "http://other.internal.example:8080/c"}"#)
        #expect(targets[0].url.endpoint == "http://service.internal.example:8080")
        #expect(Self.sameStorage(targets[0].url.endpoint, targets[1].url.endpoint))
        #expect(Self.sameStorage(targets[0].url.host, targets[1].url.host))
        #expect(!Self.sameStorage(targets[0].url.endpoint, targets[2].url.endpoint))
        #expect(targets[2].url.endpoint == "http://other.internal.example:8080")
        #expect(targets[1].url.requestURL == "http://service.internal.example:8080/b")
    }

    /// PlainOptions reads or refuses every optional field: one added without it would share
    /// the settings of targets that set it differently.
    @Test func everyFieldOfATargetIsReadByPlainOptions() {
        let fields = Mirror(reflecting: TargetConfig(name: "a", url: "http://127.0.0.1/")).children.map(\.label)
        // name, url, the 7 plain options PlainOptions keeps and the 10 it refuses.
        #expect(fields.count == 19)
        #expect(PlainOptions(TargetConfig(name: "a", url: "http://127.0.0.1/"), kind: .http) != nil)
    }

    @Test func aTargetInTheListIsANameAURLAndAReference() {
        // Was 280 bytes with every option inline; the list is held for the probe's life.
        #expect(MemoryLayout<TargetSpec>.stride <= 96)
    }
}
