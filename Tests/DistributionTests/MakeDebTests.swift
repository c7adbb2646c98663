import Foundation
import PathwatchTestSupport
import Testing

/// `make deb` never leaves a half-written package under the package's name: dist/make-deb.sh has
/// dpkg-deb write a temporary name in the output folder and renames it over the final one, so a
/// copy or an install taken while it runs sees the previous package or none. The folder is
/// watched with inotify while the script runs twice: the package's name only ever arrives by a
/// rename, and nothing else stays behind.
@Suite(.enabled(if: Distribution.missingInputs == nil, "\(Distribution.missingInputs ?? "")"), .onItsOwnThread)
struct MakeDebTests {
    @Test func thePackageAppearsOnlyWholeByARenameAndNoTemporaryFileStays() throws {
        let folder = DebianRoot.folder.appendingPathComponent("atomic-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let watch = try FolderWatch(folder.path)
        defer { watch.close() }

        // Twice: the second run replaces an existing package, as a rebuild does.
        let first = try Distribution.makeDeb(into: folder)
        let second = try Distribution.makeDeb(into: folder)
        #expect(first == second)
        let name = first.lastPathComponent
        let events = watch.drain()
        let forName = events.filter { $0.name == name }
        // Written in place, the name is created and then filled; renamed, it only arrives.
        #expect(
            !forName.isEmpty && forName.allSatisfy { $0.mask & UInt32(IN_MOVED_TO) != 0 },
            "events for \(name): \(forName.map { String($0.mask, radix: 16) })")
        #expect(forName.filter { $0.mask & UInt32(IN_MOVED_TO) != 0 }.count == 2)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left == [name], "left in the output folder: \(left)")
        // The package is whole: dpkg-deb reads its members, data.tar among them.
        let contents = try run(["dpkg-deb", "--contents", first.path], timeout: 120)
        #expect(contents.status == 0 && contents.stdout.contains("./usr/bin/pathwatch"), "\(contents.stderr)")
    }
}

/// The names created, written and moved into one folder, from inotify.
final class FolderWatch {
    struct Event {
        var mask: UInt32
        var name: String
    }

    private let fd: Int32

    init(_ path: String) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw TestFailure("inotify_init1: \(errno)") }
        let mask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)
        guard inotify_add_watch(fd, path, mask) >= 0 else { throw TestFailure("inotify_add_watch \(path): \(errno)") }
    }

    /// Every event queued so far (the watch is non-blocking: an empty queue ends the read).
    func drain() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
            while offset + 16 <= count {
                func word(_ at: Int) -> UInt32 {
                    buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + at, as: UInt32.self) }
                }
                let mask = word(4)
                let length = Int(word(12))
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                events.append(Event(mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
                offset += 16 + length
            }
        }
        return events
    }

    func close() { _ = Glibc.close(fd) }
}
