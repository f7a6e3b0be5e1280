module "me" {
  source = "./"
}
output "o" { value = module.me.o }
