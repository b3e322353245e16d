module go.yaml.in/yaml/v3

go 1.22
