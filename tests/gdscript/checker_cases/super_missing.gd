extends Node
## `super.f()` needs an `f` in a base class.


func _ready() -> void:
	super._ready()
	super.no_such_method()  # expect: super-missing
