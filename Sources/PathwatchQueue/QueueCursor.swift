/// Where the consumer stands: the first record not yet completed (segment number and byte
/// offset) and the lifetime counts of records given up on. Kept in the file `cursor` as two 64-byte
/// slots written alternately, each with a generation number and a CRC: a write torn by a crash
/// spoils only the slot being written, and the other still holds an earlier position, so the
/// cursor can fall back (redelivering) but never jump ahead (losing).
struct QueueCursor: Sendable, Equatable {
    var segment: UInt64
    var offset: UInt64
    /// Records dropped because the queue was full, or unreadable.
    var dropped: UInt64 = 0
    /// Records the consumer completed as rejected (its receiver refused them for good).
    var rejected: UInt64 = 0
    var generation: UInt64 = 0

    static let slotSize = 64
    static let magic: UInt32 = 0x5057_4331  // "PWC1"

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        LittleEndian.append(Self.magic, to: &bytes)
        LittleEndian.append(generation, to: &bytes)
        LittleEndian.append(segment, to: &bytes)
        LittleEndian.append(offset, to: &bytes)
        LittleEndian.append(dropped, to: &bytes)
        LittleEndian.append(rejected, to: &bytes)
        LittleEndian.append(CRC32.checksum(bytes), to: &bytes)
        bytes += [UInt8](repeating: 0, count: Self.slotSize - bytes.count)
        return bytes
    }

    static func decode<C: RandomAccessCollection>(slot: C) -> QueueCursor? where C.Element == UInt8, C.Index == Int {
        let body = Array(slot.prefix(44))
        guard body.count == 44, LittleEndian.read(UInt32.self, from: body, at: 0) == magic,
            let crc = LittleEndian.read(UInt32.self, from: slot, at: 44), CRC32.checksum(body) == crc,
            let generation = LittleEndian.read(UInt64.self, from: body, at: 4),
            let segment = LittleEndian.read(UInt64.self, from: body, at: 12),
            let offset = LittleEndian.read(UInt64.self, from: body, at: 20),
            let dropped = LittleEndian.read(UInt64.self, from: body, at: 28),
            let rejected = LittleEndian.read(UInt64.self, from: body, at: 36)
        else { return nil }
        return QueueCursor(segment: segment, offset: offset, dropped: dropped, rejected: rejected, generation: generation)
    }

    /// The newest valid slot of a cursor file's contents; nil when neither is valid.
    static func newest(in file: [UInt8]) -> QueueCursor? {
        let slots = [0, 1].compactMap { i -> QueueCursor? in
            let start = i * slotSize
            guard file.count >= start + slotSize else { return nil }
            return decode(slot: file[start..<(start + slotSize)])
        }
        return slots.max { $0.generation < $1.generation }
    }
}
