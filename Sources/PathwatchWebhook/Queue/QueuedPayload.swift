import PathwatchAgent
/// One HTTP body waiting to be delivered, with the id it is delivered under (`webhook-id`):
/// the change event's id, or an id made once when a document or re-send was queued, so every
/// retry of it — also after a restart — carries the same id.
struct QueuedPayload: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case event = 1
        case document = 2
        case resend = 3
    }

    var kind: Kind
    var id: String
    var enqueuedAt: WallTime
    var body: [UInt8]
}

/// How a payload is written in a segment file:
///
///     frame   = length:u32le  crc32(record):u32le  record
///     record  = version:u8(1)  kind:u8  enqueued_ms:i64le  id_length:u16le  id  body
///
/// A frame is appended in one write(2) and fsync'd before the payload counts as accepted. After
/// a crash the last frame of the last segment may be torn (short, or its CRC does not match):
/// recovery cuts the segment there, which loses only a payload that was never acknowledged.
enum QueueFrame {
    static let headerSize = 8
    static let version: UInt8 = 1
    /// No single payload is larger; a length above it in a header marks corruption.
    static let maxRecordSize = 64 * 1024 * 1024

    static func encode(_ payload: QueuedPayload) -> [UInt8] {
        let idBytes = Array(payload.id.utf8.prefix(Int(UInt16.max)))
        var record: [UInt8] = []
        record.reserveCapacity(12 + idBytes.count + payload.body.count)
        record.append(version)
        record.append(payload.kind.rawValue)
        LittleEndian.append(payload.enqueuedAt.milliseconds, to: &record)
        LittleEndian.append(UInt16(idBytes.count), to: &record)
        record += idBytes
        record += payload.body
        var frame: [UInt8] = []
        frame.reserveCapacity(headerSize + record.count)
        LittleEndian.append(UInt32(record.count), to: &frame)
        LittleEndian.append(CRC32.checksum(record), to: &frame)
        frame += record
        return frame
    }

    /// The length of the whole frame starting at `offset` when its header is sane, the record
    /// fits in `bytes` and its CRC matches; nil otherwise (never trusts the stored length).
    static func frameLength(in bytes: [UInt8], at offset: Int) -> Int? {
        guard let length = LittleEndian.read(UInt32.self, from: bytes, at: offset),
            let crc = LittleEndian.read(UInt32.self, from: bytes, at: offset + 4),
            length >= 12, Int(length) <= maxRecordSize,
            offset + headerSize + Int(length) <= bytes.count,
            CRC32.checksum(bytes[(offset + headerSize)..<(offset + headerSize + Int(length))]) == crc
        else { return nil }
        return headerSize + Int(length)
    }

    /// Decodes a record whose CRC has been checked; nil when its fields do not fit.
    static func decode(record: [UInt8]) -> QueuedPayload? {
        guard record.count >= 12, record[0] == version, let kind = QueuedPayload.Kind(rawValue: record[1]),
            let ms = LittleEndian.read(Int64.self, from: record, at: 2),
            let idLength = LittleEndian.read(UInt16.self, from: record, at: 10),
            12 + Int(idLength) <= record.count
        else { return nil }
        let id = String(decoding: record[12..<(12 + Int(idLength))], as: UTF8.self)
        return QueuedPayload(kind: kind, id: id, enqueuedAt: WallTime(milliseconds: ms), body: Array(record[(12 + Int(idLength))...]))
    }
}
