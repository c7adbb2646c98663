import Foundation

/// Reads a pipe to its end on a thread of its own: each chunk to `chunk`, then one empty `Data`
/// at the end. A blocking read, never `FileHandle.readabilityHandler`: on Linux that arms a
/// libdispatch read source for each handle, and handles torn down on several threads at once can
/// leave libdispatch's epoll bookkeeping pointing at freed memory, so the whole test process
/// crashes in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949). A full run
/// with four blocking tests at a time met it. A blocking read registers nothing with libdispatch.
enum PipeReader {
    static func read(_ pipe: Pipe, name: String, _ chunk: @escaping @Sendable (Data) -> Void) {
        let handle = pipe.fileHandleForReading
        let thread = Thread {
            while true {
                let data = handle.availableData
                chunk(data)
                if data.isEmpty { return }
            }
        }
        thread.name = name
        thread.start()
    }
}
