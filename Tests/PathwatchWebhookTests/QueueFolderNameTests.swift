@testable import PathwatchWebhook
import Testing

/// A webhook sink's queue folder under `agent.state_dir` is named by its format and URL only, and
/// never renamed: a backlog left by an earlier run, or release, is found again.
@Suite struct QueueFolderNameTests {
    @Test func theQueueFolderIsNamedByFormatAndURLOnly() {
        let a = WebhookSink.folderName(format: .pathwatch, url: "http://127.0.0.1:9000/hook")
        #expect(a == WebhookSink.folderName(format: .pathwatch, url: "http://127.0.0.1:9000/hook"))
        #expect(a != WebhookSink.folderName(format: .slack, url: "http://127.0.0.1:9000/hook"))
        #expect(a != WebhookSink.folderName(format: .pathwatch, url: "http://127.0.0.1:9001/hook"))
        #expect(a.hasPrefix("webhook-") && a.count == "webhook-".count + 16)
    }

    @Test func aQueueFolderKeepsTheNameEarlierReleasesGaveIt() {
        // An existing backlog is found again only if the name never changes.
        #expect(WebhookSink.folderName(format: .pathwatch, url: "http://127.0.0.1:9000/hook") == "webhook-39293ac685a70623")
    }
}
