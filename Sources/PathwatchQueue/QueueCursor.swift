/// Where the consumer stands: the first record not yet completed (segment number and byte
/// offset), how far into that record its owner got (`progress`, for an owner that sends one
/// record in several parts) and the lifetime counts of records given up on. Kept in the file
/// `cursor` as two 64-byte slots written alternately, each with a generation number and a CRC: a
/// write torn by a crash spoils only the slot being written, and the other still holds an earlier
/// position, so the cursor can fall back (redelivering) but never jump ahead (losing).
///
/// A slot without progress keeps the first layout (`PWC1`), byte for byte, so a folder stays
/// readable by releases that know only that one; a slot with progress is `PWC2`, the same fields
/// and `progress` after them.
struct QueueCursor: Sendable, Equatable {
    var segment: UInt64
    var offset: UInt64
    /// Records dropped because the queue was full, or unreadable.
    var dropped: UInt64 = 0
    /// Records the consumer completed as rejected (its receiver refused them for good).
    var rejected: UInt64 = 0
    /// The owner's measure of how much of the first record it has consumed (0: none of it).
    var progress: UInt64 = 0
    var generation: UInt64 = 0

    static let slotSize = 64
    static let magic: UInt32 = 0x5057_4331  // "PWC1"
    static let magicWithProgress: UInt32 = 0x5057_4332  // "PWC2"

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        LittleEndian.append(progress == 0 ? Self.magic : Self.magicWithProgress, to: &bytes)
        LittleEndian.append(generation, to: &bytes)
        LittleEndian.append(segment, to: &bytes)
        LittleEndian.append(offset, to: &bytes)
        LittleEndian.append(dropped, to: &bytes)
        LittleEndian.append(rejected, to: &bytes)
        if progress != 0 { LittleEndian.append(progress, to: &bytes) }
        LittleEndian.append(CRC32.checksum(bytes), to: &bytes)
        bytes += [UInt8](repeating: 0, count: Self.slotSize - bytes.count)
        return bytes
    }

    static func decode<C: RandomAccessCollection>(slot: C) -> QueueCursor? where C.Element == UInt8, C.Index == Int {
        let slot = Array(slot)
        let magicFound = LittleEndian.read(UInt32.self, from: slot, at: 0)
        let bodySize = magicFound == magicWithProgress ? 52 : 44
        let body = Array(slot.prefix(bodySize))
        guard body.count == bodySize, magicFound == magic || magicFound == magicWithProgress,
            let crc = LittleEndian.read(UInt32.self, from: slot, at: bodySize), CRC32.checksum(body) == crc,
            let generation = LittleEndian.read(UInt64.self, from: body, at: 4),
            let segment = LittleEndian.read(UInt64.self, from: body, at: 12),
            let offset = LittleEndian.read(UInt64.self, from: body, at: 20),
            let dropped = LittleEndian.read(UInt64.self, from: body, at: 28),
            let rejected = LittleEndian.read(UInt64.self, from: body, at: 36)
        else { return nil }
        let progress = bodySize == 52 ? LittleEndian.read(UInt64.self, from: body, at: 44) ?? 0 : 0
        return QueueCursor(
            segment: segment, offset: offset, dropped: dropped, rejected: rejected, progress: progress,
            generation: generation)
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
