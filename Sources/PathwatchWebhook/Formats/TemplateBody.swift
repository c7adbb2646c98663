import PathwatchJSON

/// `template` requests: each queued change as the configured template fills it (`BodyTemplate`).
struct TemplateBody: BatchShape {
    let template: BodyTemplate

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        guard let first = run.first else { return ([], 0) }
        // A record that reaches here passed its CRC, and the serializer wrote it: it parses.
        let change = (try? JSONParser.parse(bytes: first.body))?.objectValue ?? JSONObject()
        return (template.render(change), 1)
    }
}
