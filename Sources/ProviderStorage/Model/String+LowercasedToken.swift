extension String {
    /// The string in lower case, as tokens are stored; the string itself, without a copy, when nothing in it would
    /// change (an import lowers millions of tokens that are lower case already).
    package var lowercasedToken: String {
        let unchanged: (UnsafeBufferPointer<UInt8>) -> Bool = { bytes in
            !bytes.contains { $0 >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        }
        return utf8.withContiguousStorageIfAvailable(unchanged) == true ? self : lowercased()
    }
}
