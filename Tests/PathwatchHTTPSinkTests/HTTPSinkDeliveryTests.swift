import Foundation
import PathwatchTestSupport
import Testing

/// The http sink's `last_delivery`: when a client last got the agent's status from it — a page,
/// a document, the metrics, or a frame of an event stream — read from the documents a file sink
/// beside it writes at every report.
@Suite("http sink deliveries", .serialized, .onItsOwnThread)
struct HTTPSinkDeliveryTests {
    /// An agent with the http sink and a file sink writing into a folder of the test's.
    final class Watched {
        let folder: URL
        let file: URL
        let live: HTTPSinkTests.LiveAgent

        init(token: String? = nil) throws {
            folder = try Unprivileged.makeTemporaryDirectory()
            file = folder.appendingPathComponent("status.json")
            live = try HTTPSinkTests.LiveAgent(
                token: token.map { _ in "${env:PW_HTTP_TOKEN}" }, bearer: token,
                extraSinks: [#"{ "type": "file", "path": "\#(file.path)" }"#],
                environment: token.map { ["PW_HTTP_TOKEN": $0] } ?? [:])
        }

        /// The file sink's latest document: its time and the http sink's last delivery.
        func latest() -> (time: Date, lastDelivery: Date?)? {
            guard let text = try? String(contentsOf: file, encoding: .utf8), let document = try? parseJSONObject(text),
                let time = (document["time"] as? String).flatMap(Self.date),
                let http = (document["sinks"] as? [[String: Any]])?.first(where: { $0["type"] as? String == "http" })
            else { return nil }
            return (time, (http["last_delivery"] as? String).flatMap(Self.date))
        }

        /// The http sink's last delivery in the first document made after `moment`.
        func lastDelivery(reportedAfter moment: Date) throws -> Date? {
            try waitFor("a document made after \(moment)", timeout: 20) {
                latest().flatMap { $0.time > moment ? $0 : nil }
            }.lastDelivery
        }

        static func date(_ text: String) -> Date? {
            let format = ISO8601DateFormatter()
            format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return format.date(from: text)
        }

        func stop() {
            live.stop()
            TestEnvironment.removeTemporaryDirectory(folder)
        }
    }

    @Test func eachFrameOfAnEventStreamIsADelivery() throws {
        let watched = try Watched()
        defer { watched.stop() }
        let stream = try BackgroundProcess(["curl", "-sS", "-N", "--max-time", "60", watched.live.base + "/events"])
        defer { _ = stream.stop() }
        try #require(stream.waitForLine(timeout: 10) { $0 == "event: history" } != nil)
        let opened = Date()
        try watched.live.setStates("critical broken\nok fine\n")
        try #require(stream.waitForLine(timeout: 10) { $0 == "event: change" } != nil)
        // The change and the status pushes after it reached the reader: deliveries, later than
        // the stream's opening.
        let delivered = waitUntil(timeout: 20) { (watched.latest()?.lastDelivery ?? .distantPast) > opened }
        #expect(
            delivered,
            "last_delivery \(String(describing: watched.latest()?.lastDelivery)) is not after the stream opened at \(opened)"
        )
    }

    @Test func healthzRefusalsAndHeadsAreNotDeliveries() throws {
        let token = "s3cret-token-for-delivery-tests"
        let watched = try Watched(token: token)
        defer { watched.stop() }
        // The set-up's requests for /status were deliveries.
        let before = try #require(try watched.lastDelivery(reportedAfter: Date()))
        let live = watched.live
        #expect(try live.curl([], "/healthz").stdout == "ok\n")
        #expect(try live.curl(["-o", "/dev/null", "-w", "%{http_code}"], "/status").stdout == "401")
        #expect(try live.curl(["-o", "/dev/null", "-w", "%{http_code}"] + live.auth(token), "/nope").stdout == "404")
        #expect(
            try live.curl(["-I", "-o", "/dev/null", "-w", "%{http_code}"] + live.auth(token), "/metrics").stdout
                == "200")
        #expect(try watched.lastDelivery(reportedAfter: Date()) == before)
        // A document fetched is one.
        #expect(
            try live.curl(["-o", "/dev/null", "-w", "%{http_code}"] + live.auth(token), "/metrics").stdout == "200")
        let after = try #require(try watched.lastDelivery(reportedAfter: Date()))
        #expect(after > before)
    }
}
