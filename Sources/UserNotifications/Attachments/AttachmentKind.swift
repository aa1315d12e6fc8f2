/// The three kinds of attachment iOS accepts, with their types and size limits.
public enum AttachmentKind: String, Sendable, Hashable, CustomStringConvertible {
    case audio
    case image
    case movie

    /// The largest file of this kind: audio 5 MB, image 10 MB, movie 50 MB (decimal megabytes).
    public var maximumSize: Int {
        switch self {
        case .audio: 5_000_000
        case .image: 10_000_000
        case .movie: 50_000_000
        }
    }

    public var description: String { rawValue }

    /// Every supported type identifier with its kind and file extensions.
    static let types: [(type: String, kind: AttachmentKind, extensions: [String])] = [
        ("public.aiff-audio", .audio, ["aiff", "aif", "aifc"]),
        ("com.microsoft.waveform-audio", .audio, ["wav", "wave"]),
        ("public.mp3", .audio, ["mp3"]),
        ("public.mpeg-4-audio", .audio, ["m4a"]),
        ("public.jpeg", .image, ["jpg", "jpeg", "jpe"]),
        ("com.compuserve.gif", .image, ["gif"]),
        ("public.png", .image, ["png"]),
        ("public.mpeg", .movie, ["mpg", "mpeg", "m2v"]),
        ("public.mpeg-2-video", .movie, ["m2ts"]),
        ("public.mpeg-4", .movie, ["mp4", "m4v"]),
        ("public.avi", .movie, ["avi"]),
    ]

    /// The type and kind from a type hint, else from a file extension; `nil` when neither names a supported type.
    static func classify(typeHint: String?, pathExtension: String) -> (String, AttachmentKind)? {
        if let typeHint {
            return types.first { $0.type == typeHint }.map { ($0.type, $0.kind) }
        }
        let lowered = pathExtension.lowercased()
        return types.first { $0.extensions.contains(lowered) }.map { ($0.type, $0.kind) }
    }
}
