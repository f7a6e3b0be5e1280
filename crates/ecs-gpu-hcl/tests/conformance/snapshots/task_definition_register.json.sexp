Object(
    [
        JsonMember {
            key: "family",
            key_span: Span {
                start: 4,
                end: 12,
            },
            value: Json {
                value: String(
                    "triton-inference",
                ),
                span: Span {
                    start: 14,
                    end: 32,
                },
            },
        },
        JsonMember {
            key: "requiresCompatibilities",
            key_span: Span {
                start: 36,
                end: 61,
            },
            value: Json {
                value: Array(
                    [
                        Json {
                            value: String(
                                "EC2",
                            ),
                            span: Span {
                                start: 64,
                                end: 69,
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 63,
                    end: 70,
                },
            },
        },
        JsonMember {
            key: "networkMode",
            key_span: Span {
                start: 74,
                end: 87,
            },
            value: Json {
                value: String(
                    "awsvpc",
                ),
                span: Span {
                    start: 89,
                    end: 97,
                },
            },
        },
        JsonMember {
            key: "cpu",
            key_span: Span {
                start: 101,
                end: 106,
            },
            value: Json {
                value: String(
                    "4096",
                ),
                span: Span {
                    start: 108,
                    end: 114,
                },
            },
        },
        JsonMember {
            key: "memory",
            key_span: Span {
                start: 118,
                end: 126,
            },
            value: Json {
                value: String(
                    "15000",
                ),
                span: Span {
                    start: 128,
                    end: 135,
                },
            },
        },
        JsonMember {
            key: "containerDefinitions",
            key_span: Span {
                start: 139,
                end: 161,
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
                                            start: 177,
                                            end: 183,
                                        },
                                        value: Json {
                                            value: String(
                                                "triton",
                                            ),
                                            span: Span {
                                                start: 185,
                                                end: 193,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "image",
                                        key_span: Span {
                                            start: 201,
                                            end: 208,
                                        },
                                        value: Json {
                                            value: String(
                                                "nvcr.io/nvidia/tritonserver:24.08-py3",
                                            ),
                                            span: Span {
                                                start: 210,
                                                end: 249,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "essential",
                                        key_span: Span {
                                            start: 257,
                                            end: 268,
                                        },
                                        value: Json {
                                            value: Bool(
                                                true,
                                            ),
                                            span: Span {
                                                start: 270,
                                                end: 274,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "environment",
                                        key_span: Span {
                                            start: 282,
                                            end: 295,
                                        },
                                        value: Json {
                                            value: Array(
                                                [],
                                            ),
                                            span: Span {
                                                start: 297,
                                                end: 299,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "environment",
                                        key_span: Span {
                                            start: 307,
                                            end: 320,
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
                                                                        start: 333,
                                                                        end: 339,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "NVIDIA_DRIVER_CAPABILITIES",
                                                                        ),
                                                                        span: Span {
                                                                            start: 341,
                                                                            end: 369,
                                                                        },
                                                                    },
                                                                },
                                                                JsonMember {
                                                                    key: "value",
                                                                    key_span: Span {
                                                                        start: 371,
                                                                        end: 378,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "compute,utility",
                                                                        ),
                                                                        span: Span {
                                                                            start: 380,
                                                                            end: 397,
                                                                        },
                                                                    },
                                                                },
                                                            ],
                                                        ),
                                                        span: Span {
                                                            start: 332,
                                                            end: 398,
                                                        },
                                                    },
                                                    Json {
                                                        value: Object(
                                                            [
                                                                JsonMember {
                                                                    key: "name",
                                                                    key_span: Span {
                                                                        start: 409,
                                                                        end: 415,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "GREETING",
                                                                        ),
                                                                        span: Span {
                                                                            start: 417,
                                                                            end: 427,
                                                                        },
                                                                    },
                                                                },
                                                                JsonMember {
                                                                    key: "value",
                                                                    key_span: Span {
                                                                        start: 429,
                                                                        end: 436,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "café 🚀 \"quoted\" back\\slash\ttab",
                                                                        ),
                                                                        span: Span {
                                                                            start: 438,
                                                                            end: 490,
                                                                        },
                                                                    },
                                                                },
                                                            ],
                                                        ),
                                                        span: Span {
                                                            start: 408,
                                                            end: 491,
                                                        },
                                                    },
                                                ],
                                            ),
                                            span: Span {
                                                start: 322,
                                                end: 499,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "resourceRequirements",
                                        key_span: Span {
                                            start: 507,
                                            end: 529,
                                        },
                                        value: Json {
                                            value: Array(
                                                [
                                                    Json {
                                                        value: Object(
                                                            [
                                                                JsonMember {
                                                                    key: "type",
                                                                    key_span: Span {
                                                                        start: 533,
                                                                        end: 539,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "GPU",
                                                                        ),
                                                                        span: Span {
                                                                            start: 541,
                                                                            end: 546,
                                                                        },
                                                                    },
                                                                },
                                                                JsonMember {
                                                                    key: "value",
                                                                    key_span: Span {
                                                                        start: 548,
                                                                        end: 555,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "1",
                                                                        ),
                                                                        span: Span {
                                                                            start: 557,
                                                                            end: 560,
                                                                        },
                                                                    },
                                                                },
                                                            ],
                                                        ),
                                                        span: Span {
                                                            start: 532,
                                                            end: 561,
                                                        },
                                                    },
                                                ],
                                            ),
                                            span: Span {
                                                start: 531,
                                                end: 562,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "portMappings",
                                        key_span: Span {
                                            start: 570,
                                            end: 584,
                                        },
                                        value: Json {
                                            value: Array(
                                                [
                                                    Json {
                                                        value: Object(
                                                            [
                                                                JsonMember {
                                                                    key: "containerPort",
                                                                    key_span: Span {
                                                                        start: 588,
                                                                        end: 603,
                                                                    },
                                                                    value: Json {
                                                                        value: Number(
                                                                            "8000",
                                                                        ),
                                                                        span: Span {
                                                                            start: 605,
                                                                            end: 609,
                                                                        },
                                                                    },
                                                                },
                                                                JsonMember {
                                                                    key: "protocol",
                                                                    key_span: Span {
                                                                        start: 611,
                                                                        end: 621,
                                                                    },
                                                                    value: Json {
                                                                        value: String(
                                                                            "tcp",
                                                                        ),
                                                                        span: Span {
                                                                            start: 623,
                                                                            end: 628,
                                                                        },
                                                                    },
                                                                },
                                                            ],
                                                        ),
                                                        span: Span {
                                                            start: 587,
                                                            end: 629,
                                                        },
                                                    },
                                                ],
                                            ),
                                            span: Span {
                                                start: 586,
                                                end: 630,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "command",
                                        key_span: Span {
                                            start: 638,
                                            end: 647,
                                        },
                                        value: Json {
                                            value: Array(
                                                [
                                                    Json {
                                                        value: String(
                                                            "tritonserver",
                                                        ),
                                                        span: Span {
                                                            start: 650,
                                                            end: 664,
                                                        },
                                                    },
                                                    Json {
                                                        value: String(
                                                            "--model-repository=/models",
                                                        ),
                                                        span: Span {
                                                            start: 666,
                                                            end: 694,
                                                        },
                                                    },
                                                ],
                                            ),
                                            span: Span {
                                                start: 649,
                                                end: 695,
                                            },
                                        },
                                    },
                                ],
                            ),
                            span: Span {
                                start: 169,
                                end: 701,
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 163,
                    end: 705,
                },
            },
        },
        JsonMember {
            key: "placementConstraints",
            key_span: Span {
                start: 709,
                end: 731,
            },
            value: Json {
                value: Array(
                    [
                        Json {
                            value: Object(
                                [
                                    JsonMember {
                                        key: "type",
                                        key_span: Span {
                                            start: 740,
                                            end: 746,
                                        },
                                        value: Json {
                                            value: String(
                                                "memberOf",
                                            ),
                                            span: Span {
                                                start: 748,
                                                end: 758,
                                            },
                                        },
                                    },
                                    JsonMember {
                                        key: "expression",
                                        key_span: Span {
                                            start: 760,
                                            end: 772,
                                        },
                                        value: Json {
                                            value: String(
                                                "attribute:ecs.instance-type =~ g5.*",
                                            ),
                                            span: Span {
                                                start: 774,
                                                end: 811,
                                            },
                                        },
                                    },
                                ],
                            ),
                            span: Span {
                                start: 739,
                                end: 812,
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 733,
                    end: 816,
                },
            },
        },
    ],
)
