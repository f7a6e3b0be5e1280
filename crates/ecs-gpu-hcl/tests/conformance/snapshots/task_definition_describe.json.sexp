Object(
    [
        JsonMember {
            key: "taskDefinition",
            key_span: Span {
                start: 4,
                end: 20,
            },
            value: Json {
                value: Object(
                    [
                        JsonMember {
                            key: "taskDefinitionArn",
                            key_span: Span {
                                start: 28,
                                end: 47,
                            },
                            value: Json {
                                value: String(
                                    "arn:aws:ecs:us-east-1:123456789012:task-definition/gpu:3",
                                ),
                                span: Span {
                                    start: 49,
                                    end: 107,
                                },
                            },
                        },
                        JsonMember {
                            key: "family",
                            key_span: Span {
                                start: 113,
                                end: 121,
                            },
                            value: Json {
                                value: String(
                                    "gpu",
                                ),
                                span: Span {
                                    start: 123,
                                    end: 128,
                                },
                            },
                        },
                        JsonMember {
                            key: "revision",
                            key_span: Span {
                                start: 134,
                                end: 144,
                            },
                            value: Json {
                                value: Number(
                                    "3",
                                ),
                                span: Span {
                                    start: 146,
                                    end: 147,
                                },
                            },
                        },
                        JsonMember {
                            key: "containerDefinitions",
                            key_span: Span {
                                start: 153,
                                end: 175,
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
                                                            start: 195,
                                                            end: 201,
                                                        },
                                                        value: Json {
                                                            value: String(
                                                                "cuda",
                                                            ),
                                                            span: Span {
                                                                start: 203,
                                                                end: 209,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "image",
                                                        key_span: Span {
                                                            start: 219,
                                                            end: 226,
                                                        },
                                                        value: Json {
                                                            value: String(
                                                                "nvidia/cuda:12.4.1-runtime-ubuntu22.04",
                                                            ),
                                                            span: Span {
                                                                start: 228,
                                                                end: 268,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "cpu",
                                                        key_span: Span {
                                                            start: 278,
                                                            end: 283,
                                                        },
                                                        value: Json {
                                                            value: Number(
                                                                "0",
                                                            ),
                                                            span: Span {
                                                                start: 285,
                                                                end: 286,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "memory",
                                                        key_span: Span {
                                                            start: 296,
                                                            end: 304,
                                                        },
                                                        value: Json {
                                                            value: Number(
                                                                "1024",
                                                            ),
                                                            span: Span {
                                                                start: 306,
                                                                end: 310,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "resourceRequirements",
                                                        key_span: Span {
                                                            start: 320,
                                                            end: 342,
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
                                                                                        start: 357,
                                                                                        end: 363,
                                                                                    },
                                                                                    value: Json {
                                                                                        value: String(
                                                                                            "GPU",
                                                                                        ),
                                                                                        span: Span {
                                                                                            start: 365,
                                                                                            end: 370,
                                                                                        },
                                                                                    },
                                                                                },
                                                                                JsonMember {
                                                                                    key: "value",
                                                                                    key_span: Span {
                                                                                        start: 372,
                                                                                        end: 379,
                                                                                    },
                                                                                    value: Json {
                                                                                        value: String(
                                                                                            "0.25",
                                                                                        ),
                                                                                        span: Span {
                                                                                            start: 381,
                                                                                            end: 387,
                                                                                        },
                                                                                    },
                                                                                },
                                                                            ],
                                                                        ),
                                                                        span: Span {
                                                                            start: 356,
                                                                            end: 388,
                                                                        },
                                                                    },
                                                                ],
                                                            ),
                                                            span: Span {
                                                                start: 344,
                                                                end: 398,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "environment",
                                                        key_span: Span {
                                                            start: 408,
                                                            end: 421,
                                                        },
                                                        value: Json {
                                                            value: Array(
                                                                [],
                                                            ),
                                                            span: Span {
                                                                start: 423,
                                                                end: 425,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "mountPoints",
                                                        key_span: Span {
                                                            start: 435,
                                                            end: 448,
                                                        },
                                                        value: Json {
                                                            value: Array(
                                                                [],
                                                            ),
                                                            span: Span {
                                                                start: 450,
                                                                end: 452,
                                                            },
                                                        },
                                                    },
                                                    JsonMember {
                                                        key: "volumesFrom",
                                                        key_span: Span {
                                                            start: 462,
                                                            end: 475,
                                                        },
                                                        value: Json {
                                                            value: Array(
                                                                [],
                                                            ),
                                                            span: Span {
                                                                start: 477,
                                                                end: 479,
                                                            },
                                                        },
                                                    },
                                                ],
                                            ),
                                            span: Span {
                                                start: 185,
                                                end: 487,
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 177,
                                    end: 493,
                                },
                            },
                        },
                        JsonMember {
                            key: "requiresCompatibilities",
                            key_span: Span {
                                start: 499,
                                end: 524,
                            },
                            value: Json {
                                value: Array(
                                    [
                                        Json {
                                            value: String(
                                                "MANAGED_INSTANCES",
                                            ),
                                            span: Span {
                                                start: 527,
                                                end: 546,
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 526,
                                    end: 547,
                                },
                            },
                        },
                        JsonMember {
                            key: "registeredAt",
                            key_span: Span {
                                start: 553,
                                end: 567,
                            },
                            value: Json {
                                value: Number(
                                    "1.7321e9",
                                ),
                                span: Span {
                                    start: 569,
                                    end: 577,
                                },
                            },
                        },
                        JsonMember {
                            key: "deregisteredAt",
                            key_span: Span {
                                start: 583,
                                end: 599,
                            },
                            value: Json {
                                value: Null,
                                span: Span {
                                    start: 601,
                                    end: 605,
                                },
                            },
                        },
                        JsonMember {
                            key: "compatibilities",
                            key_span: Span {
                                start: 611,
                                end: 628,
                            },
                            value: Json {
                                value: Array(
                                    [
                                        Json {
                                            value: String(
                                                "EC2",
                                            ),
                                            span: Span {
                                                start: 631,
                                                end: 636,
                                            },
                                        },
                                        Json {
                                            value: String(
                                                "MANAGED_INSTANCES",
                                            ),
                                            span: Span {
                                                start: 638,
                                                end: 657,
                                            },
                                        },
                                    ],
                                ),
                                span: Span {
                                    start: 630,
                                    end: 658,
                                },
                            },
                        },
                    ],
                ),
                span: Span {
                    start: 22,
                    end: 662,
                },
            },
        },
        JsonMember {
            key: "tags",
            key_span: Span {
                start: 666,
                end: 672,
            },
            value: Json {
                value: Array(
                    [],
                ),
                span: Span {
                    start: 674,
                    end: 676,
                },
            },
        },
    ],
)
