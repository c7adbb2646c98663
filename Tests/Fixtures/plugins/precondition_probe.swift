// A Swift plug-in whose sample fails a precondition, built without optimisation as an author's
// debug build is: the Swift runtime prints "Precondition failed: …" (and a stack trace) to
// stderr, then stops the process with a trap instruction. Built with swiftc against the ABI
// header alone (FixturePlugins.buildSwift). Its name is "precondition".
import CPathwatchProbe

private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

// A value the precondition reads, so the check is made when the sample runs, not at compile time.
nonisolated(unsafe) private var targets: [String] = []

// Written once, when first asked for, and only read after: the host never writes it.
nonisolated(unsafe) private let descriptor: UnsafeMutablePointer<pw_probe_descriptor> = {
    let made = UnsafeMutablePointer<pw_probe_descriptor>.allocate(capacity: 1)
    var value = pw_probe_descriptor()
    value.abi_version = PW_PROBE_ABI_VERSION
    value.struct_size = UInt32(MemoryLayout<pw_probe_descriptor>.size)
    value.name = cString("precondition")
    value.version = cString("1.0.0")
    value.description = cString("Fails a precondition in every sample.")
    value.create = { _, _, instance, _ in
        instance?.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return PW_OK
    }
    value.sample = { _, _, _ in
        precondition(!targets.isEmpty, "the sample found no targets")
        return PW_OK
    }
    value.destroy = { _ in }
    made.initialize(to: value)
    return made
}()

@_cdecl("pathwatch_probe_entry")
public func pathwatchProbeEntry() -> UnsafePointer<pw_probe_descriptor> {
    UnsafePointer(descriptor)
}
