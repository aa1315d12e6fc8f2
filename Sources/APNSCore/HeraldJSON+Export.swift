/// APNSCore's JSON is `HeraldJSON`'s (`JSONValue`, `JSONObject`, `JSONNumber`): re-exported, so `import APNSCore` is
/// enough to read and write payloads.
@_exported public import HeraldJSON
