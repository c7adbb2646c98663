/// One record of a queue: bytes the queue never reads, and the little its owner needs to know
/// about them without decoding them (what they are, the id they are sent under, when they were
/// queued). A webhook keeps an HTTP body and its `webhook-id` here; a remote-write sink would
/// keep a compressed write request.
package struct QueueRecord: Sendable, Equatable {
    /// The owner's tag for what `body` is (kept as given; the queue gives it no meaning).
    package var kind: UInt8
    /// The owner's id for the record; at most 65,535 bytes of UTF-8 are kept.
    package var id: String
    /// When the owner queued it, in milliseconds since the Unix epoch.
    package var enqueuedAtMilliseconds: Int64
    package var body: [UInt8]

    package init(kind: UInt8, id: String, enqueuedAtMilliseconds: Int64, body: [UInt8]) {
        self.kind = kind
        self.id = id
        self.enqueuedAtMilliseconds = enqueuedAtMilliseconds
        self.body = body
    }
}

/// How a record is written in a segment file:
///
///     frame   = length:u32le  crc32(record):u32le  record
///     record  = version:u8(1)  kind:u8  enqueued_ms:i64le  id_length:u16le  id  body
///
/// A frame whose version is 2 is a segment's preamble (`DurableQueue.append(_:preamble:)`):
/// the same fields, kind, time and id zero, the owner's bytes as body. It is not a record: it
/// is never indexed, counted or handed out, only read back with the segment's prologue.
///
/// A frame is appended in one write(2) and fsync'd before the record counts as accepted. After
/// a crash the last frame of the last segment may be torn (short, or its CRC does not match):
/// recovery cuts the segment there, which loses only a record that was never acknowledged.
/// The layout is fixed: a backlog an earlier release of the webhook sink left must read unchanged.
enum QueueFrame {
    static let headerSize = 8
    static let version: UInt8 = 1
    /// A segment's preamble (see above).
    static let preambleVersion: UInt8 = 2
    /// Version, kind, time and the id's length.
    static let fixedFields = 12
    /// No single record is larger; a length above it in a header marks corruption.
    static let maxRecordSize = 64 * 1024 * 1024

    static func encode(_ record: QueueRecord) -> [UInt8] { encode(record, version: version) }

    static func encodePreamble(_ body: [UInt8]) -> [UInt8] {
        encode(QueueRecord(kind: 0, id: "", enqueuedAtMilliseconds: 0, body: body), version: preambleVersion)
    }

    /// Whether the frame at `offset` (already checked by `frameLength`) is a preamble.
    static func isPreamble(in bytes: [UInt8], at offset: Int) -> Bool {
        offset + headerSize < bytes.count && bytes[offset + headerSize] == preambleVersion
    }

    private static func encode(_ record: QueueRecord, version: UInt8) -> [UInt8] {
        let idBytes = Array(record.id.utf8.prefix(Int(UInt16.max)))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fixedFields + idBytes.count + record.body.count)
        bytes.append(version)
        bytes.append(record.kind)
        LittleEndian.append(record.enqueuedAtMilliseconds, to: &bytes)
        LittleEndian.append(UInt16(idBytes.count), to: &bytes)
        bytes += idBytes
        bytes += record.body
        var frame: [UInt8] = []
        frame.reserveCapacity(headerSize + bytes.count)
        LittleEndian.append(UInt32(bytes.count), to: &frame)
        LittleEndian.append(CRC32.checksum(bytes), to: &frame)
        frame += bytes
        return frame
    }

    /// The length of the whole frame starting at `offset` when its header is sane, the record
    /// fits in `bytes` and its CRC matches; nil otherwise (never trusts the stored length).
    static func frameLength(in bytes: [UInt8], at offset: Int) -> Int? {
        guard let length = LittleEndian.read(UInt32.self, from: bytes, at: offset),
            let crc = LittleEndian.read(UInt32.self, from: bytes, at: offset + 4),
            length >= fixedFields, Int(length) <= maxRecordSize,
            offset + headerSize + Int(length) <= bytes.count,
            CRC32.checksum(bytes[(offset + headerSize)..<(offset + headerSize + Int(length))]) == crc
        else { return nil }
        return headerSize + Int(length)
    }

    /// Decodes a record whose CRC has been checked; nil when its fields do not fit.
    static func decode(record bytes: [UInt8], version: UInt8 = version) -> QueueRecord? {
        guard bytes.count >= fixedFields, bytes[0] == version,
            let ms = LittleEndian.read(Int64.self, from: bytes, at: 2),
            let idLength = LittleEndian.read(UInt16.self, from: bytes, at: 10),
            fixedFields + Int(idLength) <= bytes.count
        else { return nil }
        let idEnd = fixedFields + Int(idLength)
        let id = String(decoding: bytes[fixedFields..<idEnd], as: UTF8.self)
        return QueueRecord(kind: bytes[1], id: id, enqueuedAtMilliseconds: ms, body: Array(bytes[idEnd...]))
    }
}
