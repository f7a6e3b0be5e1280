(block locals (attr crlf "windows line endings")
(attr list (tuple 1 2))
(attr doc "line\n"))
