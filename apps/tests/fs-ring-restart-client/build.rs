fn main() {
    conflux_manifest::build_script_main()
}
