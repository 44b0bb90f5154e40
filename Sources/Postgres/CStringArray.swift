/// Calls `body` with a C array of NUL-terminated strings (a NULL pointer for each nil entry).
///
/// All strings share one buffer, so a statement with many binds costs two allocations, and no
/// pointer outlives the call: libpq copies what it needs before returning.
func withCStringArray<Result>(
    _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> Result
) rethrows -> Result {
    var storage: [UInt8] = []
    var offsets: [Int?] = []
    offsets.reserveCapacity(strings.count)
    for string in strings {
        guard let string else {
            offsets.append(nil)
            continue
        }
        offsets.append(storage.count)
        // Bytes from the UTF-8 view are copied in bulk; `utf8CString` would copy each string once more first.
        storage.append(contentsOf: string.utf8)
        storage.append(0)
    }
    return try storage.withUnsafeBufferPointer { buffer in
        try buffer.withMemoryRebound(to: CChar.self) { characters in
            let pointers = offsets.map { offset in offset.map { UnsafePointer(characters.baseAddress! + $0) } }
            return try pointers.withUnsafeBufferPointer { try body($0.baseAddress) }
        }
    }
}
