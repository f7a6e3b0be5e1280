Object(
    [
        JsonMember {
            key: "variable",
            key_span: Span {
                start: 4,
                end: 14,
            },
            value: Json {
                value: Object(
                    [
                        JsonMember {
                            key: "gpu_count",
                            key_span: Span {
                                start: 22,
                                end: 33,
                            },
                            value: Json {
                                value: Object(
                                    [
                                        JsonMember {
                                            key: "type",
                                            key_span: Span {
                                                start: 43,
                                                end: 49,
                                            },
                                            value: Json {
                                                value: String(
                                                    "number",
                                                ),
                                                span: Span {
                                                    start: 51,
                                                    end: 59,
                                                },
                                            },
                                        },
                                        JsonMember {
                                            key: "default",
                                            key_span: Span {
                                                start: 67,
                                                end: 76,
                                            },
                                            value: Json {
                                                value: Number(
                                                    "1",
                                                ),
                                                span: Span {
                                                    start: 78,
                                                    end: 79,
                                                },
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 35,
                                    end: 85,
                                },
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 16,
                    end: 89,
                },
            },
        },
        JsonMember {
            key: "locals",
            key_span: Span {
                start: 93,
                end: 101,
            },
            value: Json {
                value: Object(
                    [
                        JsonMember {
                            key: "env",
                            key_span: Span {
                                start: 109,
                                end: 114,
                            },
                            value: Json {
                                value: Array(
                                    [
                                        Json {
                                            value: Object(
                                                [
                                                    JsonMember {
                                                        key: "name",
                                                        key_span: Span {
                                                            start: 125,
                                                            end: 131,
                                                        },
                                                        value: Json {
                                                            value: String(
                                                                "NVIDIA_DRIVER_CAPABILITIES",
                                                            ),
                                                            span: Span {
                                                                start: 133,
                                                                end: 161,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "value",
                                                        key_span: Span {
                                                            start: 163,
                                                            end: 170,
                                                        },
                                                        value: Json {
                                                            value: String(
                                                                "compute,utility",
                                                            ),
                                                            span: Span {
                                                                start: 172,
                                                                end: 189,
                                                            },
                                                        },
                                                    },
                                                ],
                                            ),
                                            span: Span {
                                                start: 124,
                                                end: 190,
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 116,
                                    end: 196,
                                },
                            },
                        },
                        JsonMember {
                            key: "name",
                            key_span: Span {
                                start: 202,
                                end: 208,
                            },
                            value: Json {
                                value: String(
                                    "gpu-${var.gpu_count}",
                                ),
                                span: Span {
                                    start: 210,
                                    end: 232,
                                },
                            },
                        },
                        JsonMember {
                            key: "unicode",
                            key_span: Span {
                                start: 238,
                                end: 247,
                            },
                            value: Json {
                                value: String(
                                    "café 🚀",
                                ),
                                span: Span {
                                    start: 249,
                                    end: 273,
                                },
                            },
                        },
                        JsonMember {
                            key: "numbers",
                            key_span: Span {
                                start: 279,
                                end: 288,
                            },
                            value: Json {
                                value: Array(
                                    [
                                        Json {
                                            value: Number(
                                                "0",
                                            ),
                                            span: Span {
                                                start: 291,
                                                end: 292,
                                            },
                                        },
                                        Json {
                                            value: Number(
                                                "-1",
                                            ),
                                            span: Span {
                                                start: 294,
                                                end: 296,
                                            },
                                        },
                                        Json {
                                            value: Number(
                                                "1.5",
                                            ),
                                            span: Span {
                                                start: 298,
                                                end: 301,
                                            },
                                        },
                                        Json {
                                            value: Number(
                                                "2e10",
                                            ),
                                            span: Span {
                                                start: 303,
                                                end: 307,
                                            },
                                        },
                                        Json {
                                            value: Number(
                                                "3.25E-2",
                                            ),
                                            span: Span {
                                                start: 309,
                                                end: 316,
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 290,
                                    end: 317,
                                },
                            },
                        },
                        JsonMember {
                            key: "nothing",
                            key_span: Span {
                                start: 323,
                                end: 332,
                            },
                            value: Json {
                                value: Null,
                                span: Span {
                                    start: 334,
                                    end: 338,
                                },
                            },
                        },
                        JsonMember {
                            key: "flags",
                            key_span: Span {
                                start: 344,
                                end: 351,
                            },
                            value: Json {
                                value: Array(
                                    [
                                        Json {
                                            value: Bool(
                                                true,
                                            ),
                                            span: Span {
                                                start: 354,
                                                end: 358,
                                            },
                                        },
                                        Json {
                                            value: Bool(
                                                false,
                                            ),
                                            span: Span {
                                                start: 360,
                                                end: 365,
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 353,
                                    end: 366,
                                },
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 103,
                    end: 370,
                },
            },
        },
        JsonMember {
            key: "output",
            key_span: Span {
                start: 374,
                end: 382,
            },
            value: Json {
                value: Object(
                    [
                        JsonMember {
                            key: "env",
                            key_span: Span {
                                start: 390,
                                end: 395,
                            },
                            value: Json {
                                value: Object(
                                    [
                                        JsonMember {
                                            key: "value",
                                            key_span: Span {
                                                start: 405,
                                                end: 412,
                                            },
                                            value: Json {
                                                value: String(
                                                    "${local.env}",
                                                ),
                                                span: Span {
                                                    start: 414,
                                                    end: 428,
                                                },
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 397,
                                    end: 434,
                                },
                            },
                        },
                        JsonMember {
                            key: "name",
                            key_span: Span {
                                start: 440,
                                end: 446,
                            },
                            value: Json {
                                value: Object(
                                    [
                                        JsonMember {
                                            key: "value",
                                            key_span: Span {
                                                start: 456,
                                                end: 463,
                                            },
                                            value: Json {
                                                value: String(
                                                    "${local.name}",
                                                ),
                                                span: Span {
                                                    start: 465,
                                                    end: 480,
                                                },
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 448,
                                    end: 486,
                                },
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 384,
                    end: 490,
                },
            },
        },
    ],
)
