locals {
  café       = "latte"
  naïve      = local.café
  größe      = 42
  名前         = "値"
  переменная = "значение"
  with-dash  = "dashes are identifier characters"
  _leading   = "underscore"
  emoji_text = "GPUs 🚀 ünïcödé"
  map = {
    ключ     = local.переменная
    "κλειδί" = local.名前
  }
}

output "unicode" {
  value = [local.naïve, local.größe, local.with-dash]
}
